// glsurf — SURF on the GPU through OpenGL. Command-line entry point: finds
// the command (command.hpp), prints its help or runs it, and turns what it
// throws into one line and an exit status: 2 for a usage error, 1 for any
// other error, 3 for a mistake in glsurf itself.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "app/command.hpp"
#include "app/suggest.hpp"
#include "gl/error.hpp"
#include "io/output.hpp"

namespace glsurf::app {

namespace {

// The command that `words` start with: words[0], and for bench the
// benchmark words[1] names (bench alone runs them all).
const Command& command_of(const std::vector<std::string>& words) {
  const std::string name = words[0] == "--version"                    ? "version"
                           : words[0] == "--help" || words[0] == "-h" ? "help"
                                                                      : words[0];
  std::vector<std::string> names = {"--version", "--help"};
  const Command* found = nullptr;
  for (const Command& command : commands()) {
    names.push_back(command.name);
    if (command.name == name) found = &command;
  }
  if (!found) {
    const std::string near = nearest(name, names);
    throw UsageError("unknown command '" + name + "'",
                     near.empty() ? "see glsurf help" : "did you mean '" + near + "'?");
  }
  if (found->parts.empty() || words.size() < 2 || option_like(words[1])) return *found;
  const Command* part = find_command(found->name + " " + words[1]);
  if (part) return *part;
  // The --help of `bench frob --help` is bench's.
  if (std::find(words.begin(), words.end(), "--help") != words.end()) return *found;
  std::vector<std::string> parts;
  for (const Command& p : found->parts) parts.push_back(p.name.substr(found->name.size() + 1));
  const std::string near = nearest(words[1], parts);
  std::string listed;
  for (const std::string& p : parts) listed += (listed.empty() ? "" : ", ") + p;
  throw UsageError("bench takes no stage (everything) or one of: " + listed,
                   near.empty() ? "see glsurf help" : "did you mean '" + near + "'?");
}

int run(const std::vector<std::string>& words) {
  const Command& command = command_of(words);
  const size_t skipped = command.name.find(' ') == std::string::npos ? 1 : 2;  // "bench detect"
  // --help anywhere (no option's value starts with --), -h only right after
  // the command or benchmark (elsewhere it may be a value: -o -h).
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "--help" || (words[i] == "-h" && i == skipped)) {
      print_to_stdout(help_text(command));
      return 0;
    }
  }
  Args args(command.name, command.options ? command.options() : OptionTable{},
            std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(skipped), words.end()));
  const int status = command.run(args);
  // A report that never arrived (a full disk, a closed pipe) is a failure;
  // a command that failed has said why already. (Where an earlier write
  // failed, its reason is gone by now.)
  if (status == 0) flush_standard_output();
  return status;
}

}  // namespace

}  // namespace glsurf::app

int main(int argc, char** argv) {
  using namespace glsurf;
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
  // is reported and cleaned up like a full disk, instead of killing the
  // process with temporary files left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // What a killed run left and this one removes is said, one line each.
  set_stale_temporary_reporter(
      [](const std::string& what) { std::fprintf(stderr, "glsurf: %s\n", one_line(what).c_str()); });
  if (argc < 2) {
    std::fputs(app::overview().c_str(), stderr);
    return 2;
  }
  try {
    return app::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const app::UsageError& e) {
    std::fprintf(stderr, "glsurf: error: %s (%s)\n", one_line(e.what()).c_str(), e.hint().c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "glsurf: error: %s\n", one_line(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "glsurf: error: out of memory\n");
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {  // a name too long, a loop of links, ...
    if (e.path1().empty())
      std::fprintf(stderr, "glsurf: error: %s\n", one_line(e.what()).c_str());
    else
      std::fprintf(stderr, "glsurf: error: %s: %s\n", one_line(e.path1().string()).c_str(),
                   e.code().message().c_str());
    return 1;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "glsurf: internal error: %s\n", one_line(e.what()).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "glsurf: error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
}
