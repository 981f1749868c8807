// The help texts, made from the commands' tables; the help and version
// commands.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <sstream>

#include "app/command.hpp"
#include "app/suggest.hpp"
#include "io/output.hpp"

namespace glsurf::app {

namespace {

constexpr size_t kWidth = 100;      // the longest line help writes, where words allow
constexpr size_t kColumn = 28;      // where the option's text starts
constexpr char kUnbroken = '\x01';  // a space that wrapped() never breaks a line at

// `text` (paragraphs split by "\n") broken into lines of at most kWidth,
// each starting with `indent` spaces; the first line's first `used` columns
// are already taken (by an option's name).
std::string wrapped(const std::string& text, size_t indent, size_t used = 0) {
  std::string out, line(used < indent ? indent - used : 0, ' ');
  size_t column = std::max(used, indent);
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool first = true;
  while (std::getline(paragraphs, paragraph)) {
    if (!first) {
      out += line + "\n";
      line.assign(indent, ' ');
      column = indent;
    }
    first = false;
    std::istringstream words(paragraph);
    std::string word;
    bool line_empty = true;
    while (words >> word) {
      if (!line_empty && column + 1 + word.size() > kWidth) {
        out += line + "\n";
        line.assign(indent, ' ');
        column = indent;
        line_empty = true;
      }
      if (!line_empty) line += ' ', ++column;
      line += word;
      column += word.size();
      line_empty = false;
    }
  }
  return out + line + "\n";
}

std::string option_help(const Option& option) {
  std::string head = "  " + option.name + (option.value.empty() ? "" : " " + option.value);
  std::string text = option.help;
  if (option.kind != Option::Kind::Flag) {
    // "(default: X)" kept on one line: its space is no place to break.
    std::string shown = "(default: " + (option.fallback.empty() ? option.shown : option.fallback) + ")";
    std::replace(shown.begin(), shown.end(), ' ', kUnbroken);
    text += " " + shown;
  }
  std::string out = head.size() + 1 > kColumn ? head + "\n" + wrapped(text, kColumn)
                                              : head + wrapped(text, kColumn, head.size());
  std::replace(out.begin(), out.end(), kUnbroken, ' ');
  return out;
}

std::string usage_line(const Command& command) {
  const bool options = command.options && !command.options().empty();
  return "usage: glsurf " + command.name + (command.synopsis.empty() ? "" : " " + command.synopsis) +
         (options ? " [options]" : "") + "\n";
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {detect_command(), describe_command(), match_command(),
                                           merge_command(),  view_command(),     warp_command(),
                                           eval_command(),   bench_command(),    info_command(),
                                           help_command(),   version_command()};
  return all;
}

const Command* find_command(const std::string& name) {
  for (const Command& command : commands()) {
    if (command.name == name) return &command;
    for (const Command& part : command.parts) {
      if (part.name == name) return &part;
    }
  }
  return nullptr;
}

std::string overview() {
  std::string out =
      "glsurf: SURF keypoints found, described and matched on the GPU through OpenGL (or on the CPU)\n"
      "\nusage: glsurf <command> [options]\n\ncommands:\n";
  for (const Command& command : commands()) {
    std::string head = "  " + command.name + " " + command.synopsis;
    head.resize(std::max(head.size() + 1, kColumn), ' ');
    out += head + command.summary + "\n";
  }
  return out +
         "\nglsurf COMMAND --help: a command's options with their defaults, and an example;\n"
         "glsurf help: every command's.\n";
}

std::string help_text(const Command& command) {
  std::string out = usage_line(command) + wrapped(command.summary + ".\n" + command.about, 2);
  const OptionTable table = command.options ? command.options() : OptionTable{};
  if (!table.empty()) {
    out += "\noptions (a flag is off unless given):\n";
    for (const Option& option : table) out += option_help(option);
  }
  if (!command.parts.empty()) {
    out += "\nbenchmarks (glsurf " + command.name + " NAME --help):\n";
    for (const Command& part : command.parts) {
      std::string head = "  " + part.name.substr(command.name.size() + 1);
      head.resize(std::max(head.size() + 1, kColumn), ' ');
      out += head + part.summary + "\n";
    }
  }
  if (!command.example.empty()) out += "\nexample:\n  glsurf " + command.example + "\n";
  return out;
}

std::string full_help() {
  std::string out = overview();
  for (const Command& command : commands()) {
    out += "\n" + help_text(command);
    for (const Command& part : command.parts) out += "\n" + help_text(part);
  }
  return out;
}

void print_to_stdout(const std::string& text) {
  errno = 0;  // a failed write's reason, read at once below
  std::fputs(text.c_str(), stdout);
  if (std::ferror(stdout) || std::fflush(stdout) != 0) throw Error(write_failed("standard output", errno));
}

namespace {

// help [COMMAND [BENCHMARK]]
int help(Args& args) {
  const std::vector<std::string> words = args.positionals();
  args.finish();
  if (words.empty()) {
    print_to_stdout(full_help());
    return 0;
  }
  const Command* command = find_command(words[0]);
  if (!command || words[0].find(' ') != std::string::npos) {
    std::vector<std::string> names;
    for (const Command& c : commands()) names.push_back(c.name);
    const std::string near = nearest(words[0], names);
    throw UsageError("no command '" + words[0] + "'",
                     near.empty() ? "see glsurf help" : "did you mean '" + near + "'?");
  }
  size_t used = 1;
  if (!command->parts.empty() && words.size() > 1) {
    const Command* part = find_command(command->name + " " + words[1]);
    if (!part) {
      throw UsageError("no benchmark '" + words[1] + "'", "see glsurf help " + command->name);
    }
    command = part;
    used = 2;
  }
  if (words.size() > used) throw UsageError("help takes one command, got '" + words[used] + "' too");
  print_to_stdout(help_text(*command));
  return 0;
}

int version(Args& args) {
  args.finish();
  print_to_stdout("glsurf " GLSURF_VERSION "\n");
  return 0;
}

}  // namespace

Command help_command() {
  return {"help",
          "[COMMAND]",
          "this overview and every command's help, or one command's",
          "glsurf help COMMAND is glsurf COMMAND --help; bench's benchmarks: glsurf help bench detect.",
          nullptr,
          help,
          "help detect",
          {}};
}

Command version_command() {
  return {"version", "", "glsurf's version (also glsurf --version)", "", nullptr, version, "version", {}};
}

}  // namespace glsurf::app
