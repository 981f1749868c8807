// The commands of glsurf: each declares its name, what it takes, its option
// table and an example; help, the overview and the dispatch in main() are
// made from these.
#pragma once

#include <string>
#include <vector>

#include "app/args.hpp"

namespace glsurf::app {

struct Command {
  std::string name;      // "detect", or "bench detect" for a part of bench
  std::string synopsis;  // the arguments: "IMAGE|DIR..."
  std::string summary;   // one line, for the overview
  std::string about;     // what help says beyond the summary (paragraphs split by "\n")
  OptionTable (*options)() = nullptr;
  int (*run)(Args& args) = nullptr;
  std::string example;         // one command line, without "glsurf "
  std::vector<Command> parts;  // bench's benchmarks: `glsurf bench detect`
};

// Every command, in the order the overview lists them.
const std::vector<Command>& commands();
// The command (or part, "bench detect") of that name, or null.
const Command* find_command(const std::string& name);

// Bare `glsurf`: what it is, the commands one line each, where help is.
std::string overview();
// `glsurf COMMAND --help`: the usage line, what it does, its options with
// their defaults (from its table), its parts, an example.
std::string help_text(const Command& command);
// `glsurf help`: the overview and every command's help.
std::string full_help();

// Writes `text` to standard output; a failed write throws glsurf::Error.
void print_to_stdout(const std::string& text);

// The commands, one per file.
Command detect_command();
Command describe_command();
Command match_command();
Command merge_command();
Command view_command();
Command warp_command();
Command eval_command();
Command bench_command();
Command info_command();
Command help_command();
Command version_command();

}  // namespace glsurf::app
