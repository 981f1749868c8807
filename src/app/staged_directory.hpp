// A directory written as a whole or not at all: warp's sequence.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/output.hpp"

namespace glsurf::app {

// OUTDIR never holds part of a sequence, nor files of an older one that eval
// would score with it: it must be new or empty. The files are written into a
// staging directory of this run's own: beside OUTDIR's place for a new one
// (renamed into place once complete), inside an empty one (moved out of it
// once complete). Anything else in OUTDIR is never touched. A run that ends
// before commit() (an error, SIGINT, SIGTERM, SIGHUP) leaves nothing: no
// staging directory, no OUTDIR, no parents made for it.
class StagedDirectory {
 public:
  // Refuses an OUTDIR that is not new or empty (or a link to nothing), and
  // makes the staging directory.
  explicit StagedDirectory(const std::string& out);
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;
  ~StagedDirectory();
  // Writes file `name` by `write` (given its staging path); an error names
  // the file as in OUTDIR, not by its staging path.
  void write(const std::string& name, const std::function<void(const std::string&)>& write);
  // Puts the complete directory in place.
  void commit();

 private:
  std::string out_;
  bool exists_ = false;           // OUTDIR was there (empty)
  std::filesystem::path target_;  // where a new OUTDIR is renamed to
  // Should SIGINT, SIGTERM or SIGHUP end the run, the staging directory goes.
  RemoveOnSignal held_;
  // The parent directories this run makes for a new OUTDIR: a run that
  // fails removes them again (those still empty).
  MadeDirectories made_;
  std::filesystem::path staging_;   // cleared once committed
  std::vector<std::string> names_;  // in the order written
};

}  // namespace glsurf::app
