// The command line's words after the command, read against the command's
// option table: one table per command (name, kind of value, default, help
// text) is what the parser accepts and what `glsurf COMMAND --help` prints.
#pragma once

#include <string>
#include <vector>

#include "gl/error.hpp"

namespace glsurf::app {

// A bad command line: exit status 2 (glsurf::Error otherwise exits 1). The
// one-line message ends with "(HINT)": by default "see glsurf help", or what
// the user probably meant ("did you mean --threshold?").
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what, std::string hint = "see glsurf help")
      : Error(what), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

// One row of a command's option table.
struct Option {
  enum class Kind { Flag, Int, Number, Text };
  std::string name;  // "--threshold", "-o"
  Kind kind = Kind::Flag;
  std::string value;        // the value as help shows it: "T", "gl|cpu"; empty for a flag
  std::string fallback;     // the value used when the option is not given, as text ("" for none)
  std::string help;         // what the option does, one sentence or two
  double min = 0, max = 0;  // Int and Number: the range a value must lie in
  std::string shown;        // Text without a fallback: what not giving it means ("standard output")
};
using OptionTable = std::vector<Option>;

// The rows, built so that a number's default is also the text help shows.
Option flag(const std::string& name, const std::string& help);
Option integer(const std::string& name, const std::string& value, int fallback, int min, int max,
               const std::string& help);
Option number(const std::string& name, const std::string& value, float fallback, float min, float max,
              const std::string& help);
Option text(const std::string& name, const std::string& value, const std::string& fallback,
            const std::string& help, const std::string& shown = "");

// A row of `table` by name, or null.
const Option* find_option(const OptionTable& table, const std::string& name);

// Options and flags are taken as they are read and marked used in place, so
// an option's value is the word that follows it on the command line, never a
// later one: `-o --upright a.png` is "-o needs a value", never -o a.png. A
// value cannot start with "--" (that is an option left without its value) or
// be a word an option read earlier took. finish() rejects whatever is left:
// an option or flag read and given again, a name the table does not have
// (with the nearest one it has, when one is close), any other word. Reading
// a name the table does not have, or finishing with one of its rows never
// read, is a mistake in glsurf (std::logic_error): the table and the command
// always agree. A word "--" ends the options: every word after it is a
// positional argument, also one that starts with '-' (a file "-x.png").
class Args {
 public:
  Args(std::string command, OptionTable table, std::vector<std::string> words);
  bool flag(const std::string& name);
  // Text options: the value given, or the table's fallback.
  std::string option(const std::string& name);
  int option_int(const std::string& name);
  float option_float(const std::string& name);
  // The first word, when it is not an option (or follows "--"); empty otherwise.
  std::string next_word();
  // Words left that are not options: call after every option has been taken.
  std::vector<std::string> positionals();
  void finish() const;
  // The options and flags read so far that were given, in the order read.
  const std::vector<std::string>& taken() const { return taken_; }
  const std::string& command() const { return command_; }

 private:
  const Option& row(const std::string& name, bool is_flag);
  std::string given(const std::string& name);  // the value given, or "" when not given
  void finish_word(const std::string& word) const;

  std::string command_;
  OptionTable table_;
  std::vector<std::string> words_;
  size_t options_end_ = 0;          // words_[options_end_] is "--", or options_end_ is words_.size()
  std::vector<bool> used_;          // taken by flag(), option(), next_word() or positionals()
  std::vector<std::string> taken_;  // options and flags read
  std::vector<bool> read_;          // per row of the table: read by the command
};

// A word that reads as an option or flag ("-o", "--upright"; "-" alone is
// standard input): never taken as a positional argument.
inline bool option_like(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

}  // namespace glsurf::app
