#include "app/args.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

#include "app/suggest.hpp"

namespace glsurf::app {

namespace {

// A number as help shows it and as the parser reads it back: the same value.
std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value);
  return text;
}

// The value of option `name` parsed by `parse` (std::stol, std::stod), which
// must use the whole text and lie in [min_value, max_value].
template <typename T, typename Parse>
T parse_option(const std::string& name, const std::string& text, T min_value, T max_value, const char* kind,
               Parse parse) {
  size_t used = 0;
  T value{};
  bool unrepresentable = false;
  try {
    // Decimal only: std::stof would also read hexadecimal ("0x10" as 16).
    if (text.find_first_of("xX") == std::string::npos) value = static_cast<T>(parse(text, &used));
  } catch (const std::out_of_range&) {
    used = 0;
    unrepresentable = true;  // e.g. 1e-400, 1e400, or a float option's 1e-50
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value >= min_value && value <= max_value)) {
    auto show = [](T v) {
      if constexpr (std::is_integral_v<T>) return std::to_string(v);  // in full, not 1.04858e+06
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(v));
      return std::string(buffer);
    };
    throw UsageError("option " + name + " needs " + kind + " from " + show(min_value) + " to " +
                     show(max_value) + ", got '" + text + "'" +
                     (unrepresentable ? " (too small or too large to represent)" : ""));
  }
  return value;
}

// "--name" or "-n": a word that names an option, as opposed to "-5" or "--".
bool names_an_option(const std::string& word) {
  const size_t dashes = word.rfind("--", 0) == 0 ? 2 : 1;
  return option_like(word) && word.size() > dashes && std::isalpha(static_cast<unsigned char>(word[dashes]));
}

}  // namespace

Option flag(const std::string& name, const std::string& help) {
  return {name, Option::Kind::Flag, "", "", help, 0, 0, ""};
}

Option integer(const std::string& name, const std::string& value, int fallback, int min, int max,
               const std::string& help) {
  return {name, Option::Kind::Int, value, std::to_string(fallback), help, double(min), double(max), ""};
}

Option number(const std::string& name, const std::string& value, float fallback, float min, float max,
              const std::string& help) {
  return {name, Option::Kind::Number, value, number_text(fallback), help, min, max, ""};
}

Option text(const std::string& name, const std::string& value, const std::string& fallback,
            const std::string& help, const std::string& shown) {
  return {name, Option::Kind::Text, value, fallback, help, 0, 0, shown};
}

const Option* find_option(const OptionTable& table, const std::string& name) {
  const auto it = std::find_if(table.begin(), table.end(), [&](const Option& o) { return o.name == name; });
  return it == table.end() ? nullptr : &*it;
}

Args::Args(std::string command, OptionTable table, std::vector<std::string> words)
    : command_(std::move(command)),
      table_(std::move(table)),
      words_(std::move(words)),
      used_(words_.size(), false),
      read_(table_.size(), false) {
  options_end_ = static_cast<size_t>(std::find(words_.begin(), words_.end(), "--") - words_.begin());
  if (options_end_ < words_.size()) used_[options_end_] = true;
}

const Option& Args::row(const std::string& name, bool is_flag) {
  const Option* option = find_option(table_, name);
  if (!option || (option->kind == Option::Kind::Flag) != is_flag) {
    throw std::logic_error("the option table of " + command_ + " has no " + (is_flag ? "flag " : "option ") +
                           name);
  }
  read_[static_cast<size_t>(option - table_.data())] = true;
  return *option;
}

bool Args::flag(const std::string& name) {
  row(name, true);
  for (size_t i = 0; i < options_end_; ++i) {
    if (!used_[i] && words_[i] == name) {
      used_[i] = true;
      taken_.push_back(name);
      return true;
    }
  }
  return false;
}

std::string Args::given(const std::string& name) {
  for (size_t i = 0; i < options_end_; ++i) {
    if (used_[i] || words_[i] != name) continue;
    // The next word on the command line, unless it is gone (taken as a flag)
    // or is itself a long option: then the value was left out.
    if (i + 1 == options_end_ || used_[i + 1] || words_[i + 1].empty() || words_[i + 1].rfind("--", 0) == 0) {
      throw UsageError("option " + name + " needs a value");
    }
    used_[i] = used_[i + 1] = true;
    taken_.push_back(name);
    return words_[i + 1];
  }
  return "";
}

std::string Args::option(const std::string& name) {
  const Option& option = row(name, false);
  if (option.kind != Option::Kind::Text) throw std::logic_error(name + " of " + command_ + " is a number");
  const std::string value = given(name);
  return value.empty() ? option.fallback : value;
}

int Args::option_int(const std::string& name) {
  const Option& option = row(name, false);
  if (option.kind != Option::Kind::Int) throw std::logic_error(name + " of " + command_ + " is no integer");
  const std::string value = given(name);
  return static_cast<int>(
      parse_option<long>(name, value.empty() ? option.fallback : value, static_cast<long>(option.min),
                         static_cast<long>(option.max), "an integer",
                         [](const std::string& t, size_t* used) { return std::stol(t, used); }));
}

float Args::option_float(const std::string& name) {
  const Option& option = row(name, false);
  if (option.kind != Option::Kind::Number) throw std::logic_error(name + " of " + command_ + " is no number");
  const std::string value = given(name);
  // Read as a double and rounded to the nearest float before the range check
  // (so "1e12" is the bound 1e12f): std::stof throws out_of_range for values
  // that only a subnormal float holds (1e-40), which are valid thresholds. A
  // value that rounds to 0 or to infinity is unrepresentable (a --max-distance
  // of 1e-50 must not turn into 0, "no maximum"); "inf" itself is merely out
  // of the option's range.
  const auto nearest_float = [](const std::string& t, size_t* used) {
    const double wide = std::stod(t, used);
    const float narrow = static_cast<float>(wide);
    if ((narrow == 0.0f && wide != 0.0) || (std::isinf(narrow) && !std::isinf(wide)))
      throw std::out_of_range(t);
    return narrow;
  };
  return parse_option<float>(name, value.empty() ? option.fallback : value, static_cast<float>(option.min),
                             static_cast<float>(option.max), "a number", nearest_float);
}

std::string Args::next_word() {
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i]) continue;
    if (i < options_end_ && option_like(words_[i])) return "";
    used_[i] = true;
    return words_[i];
  }
  return "";
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> out;
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i] || (i < options_end_ && option_like(words_[i]))) continue;
    out.push_back(words_[i]);
    used_[i] = true;
  }
  return out;
}

void Args::finish() const {
  for (size_t k = 0; k < table_.size(); ++k) {
    if (!read_[k]) throw std::logic_error(command_ + " never reads its option " + table_[k].name);
  }
  // Checked once every option has taken its value, so a value that happens
  // to be an option's name is not taken for that option given again.
  for (size_t i = 0; i < words_.size(); ++i) {
    if (!used_[i] && std::find(taken_.begin(), taken_.end(), words_[i]) != taken_.end()) {
      throw UsageError("option " + words_[i] + " given twice");
    }
  }
  for (size_t i = 0; i < words_.size(); ++i) {
    if (!used_[i]) finish_word(words_[i]);
  }
}

void Args::finish_word(const std::string& word) const {
  // --threshold=200 for an option of the table: the form it takes.
  const size_t equals = word.find('=');
  const std::string name = word.substr(0, equals);
  const std::string value = equals == std::string::npos ? "" : word.substr(equals + 1);
  const Option* option = find_option(table_, name);
  if (equals != std::string::npos && option && option->kind != Option::Kind::Flag && !value.empty()) {
    throw UsageError("unexpected argument '" + word + "' (an option's value is the next word: " + name + " " +
                     value + ")");
  }
  if (equals != std::string::npos && option && option->kind == Option::Kind::Flag) {
    throw UsageError("unexpected argument '" + word + "' (" + name + " takes no value)");
  }
  if (equals == std::string::npos && !option && names_an_option(word)) {
    std::vector<std::string> names;
    for (const Option& o : table_) names.push_back(o.name);
    const std::string near = nearest(word, names);
    throw UsageError("unknown option " + word + " for " + command_,
                     near.empty() ? "see glsurf " + command_ + " --help" : "did you mean " + near + "?");
  }
  throw UsageError("unexpected argument '" + word + "'");
}

}  // namespace glsurf::app
