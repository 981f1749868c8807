#include "app/staged_directory.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "app/args.hpp"
#include "gl/error.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

// Moves the complete sequence from the staging directory inside the empty
// OUTDIR `out` into it, and removes the staging directory. SIGINT, SIGTERM and
// SIGHUP wait until the moves are done (a few renames), so that a signal never
// finds part of a sequence in OUTDIR. A name that someone else took in OUTDIR
// meanwhile is never replaced: the files moved so far are removed and the
// run fails. (A file system without RENAME_NOREPLACE checks the name first.)
void move_out_of_staging(const fs::path& staging, const std::string& out,
                         const std::vector<std::string>& names) {
  sigset_t block, previous;
  sigemptyset(&block);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, signal);
  ::pthread_sigmask(SIG_BLOCK, &block, &previous);
  std::vector<fs::path> moved;
  int error = 0;
  std::string failed;
  for (const std::string& name : names) {
    const fs::path to = fs::path(out) / name;
    const fs::path from = staging / name;
    int status = ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
    if (status != 0 && errno == EINVAL) {
      struct stat there {};
      status = ::lstat(to.c_str(), &there) == 0 ? (errno = EEXIST, -1) : ::rename(from.c_str(), to.c_str());
    }
    if (status != 0) {
      error = errno;
      failed = to.string();
      break;
    }
    moved.push_back(to);
  }
  if (error != 0) {
    for (const fs::path& p : moved) ::unlink(p.c_str());
  } else {
    ::rmdir(staging.c_str());
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error == EEXIST) throw Error(failed + ": appeared during the run; the sequence was not written");
  if (error != 0) throw Error(failed + ": cannot move into place (" + std::strerror(error) + ")");
}

}  // namespace

StagedDirectory::StagedDirectory(const std::string& out) : out_(out) {
  if (out.empty()) throw UsageError("warp needs a non-empty OUTDIR");
  // Elsewhere - is standard input or output; a sequence is a directory.
  if (out == "-")
    throw UsageError("warp writes a directory of images: OUTDIR cannot be - (give ./- for one of that name)");
  std::error_code ec;
  exists_ = fs::exists(out, ec);
  // What runs killed outright left in OUTDIR goes first (an empty OUTDIR
  // with only a dead run's staging directory in it is empty again).
  if (exists_ && fs::is_directory(out, ec)) remove_stale_temporaries(out);
  if (exists_ && !(fs::is_directory(out, ec) && fs::is_empty(out, ec))) {
    throw Error(out + ": exists and is not an empty directory; warp writes a new sequence directory");
  }
  target_ = out;
  // A name no other run has (mkdtemp), that says which process made it
  // (temporary_marker's namespace and process id): an interrupted run
  // removes its staging directory, and what one killed outright leaves
  // behind a later run removes.
  const std::string pattern =
      ".glsurf_warp." + pid_namespace() + "." + std::to_string(::getpid()) + ".XXXXXX";
  std::string name;
  if (exists_) {
    name = (fs::path(out) / pattern).string();
    if (!::mkdtemp(name.data()))
      throw Error(out + ": cannot create directory (" + std::strerror(errno) + ")");
  } else {
    // The directories above OUTDIR as the kernel finds them (a link
    // followed, then ".."), so that "lnk/../x" is the x beside lnk's
    // target_; from the first missing one on, by name ("nosuch/../x" is x).
    // OUTDIR itself stays as given: a link there is judged below.
    fs::path given = fs::absolute(out);
    if (!given.has_filename()) given = given.parent_path();  // "new/"
    const fs::path last = given.filename();
    target_ = last == "." || last == ".." ? fs::weakly_canonical(given, ec)
                                          : fs::weakly_canonical(given.parent_path(), ec) / last;
    if (ec) target_ = given.lexically_normal();
    // What the final rename would find at the target ("dl/" a link to
    // nothing, "x/../full" a full directory) is refused before the work.
    const fs::file_status there = fs::symlink_status(target_, ec);
    if (fs::is_symlink(there) && !fs::exists(fs::status(target_, ec))) {
      throw Error(out + ": is a link to nothing; give a new or empty directory");
    }
    if (fs::exists(there) && !(fs::is_directory(there) && fs::is_empty(target_, ec))) {
      throw Error(out + ": exists and is not an empty directory; warp writes a new sequence directory");
    }
    // The missing parents (MadeDirectories). Another run that made a parent
    // this one found already there may remove it again (it failed, and the
    // parent was empty) before the staging directory is made in it: then the
    // parents are made again.
    for (int attempt = 0;; ++attempt) {
      const int mkdir_error = made_.make(target_.parent_path());
      if (mkdir_error == 0 && attempt == 0) remove_stale_temporaries(target_.parent_path().string());
      name = (target_.parent_path() / pattern).string();
      if (mkdir_error == 0 && ::mkdtemp(name.data())) break;
      const int error = mkdir_error != 0 ? mkdir_error : errno;
      if (error != ENOENT || attempt == 2) {
        throw Error(out + ": cannot create directory (" + std::strerror(error) + ")");
      }
    }
  }
  held_ = RemoveOnSignal(name, RemoveOnSignal::Directory);
  staging_ = name;
  if (!exists_) {
    const mode_t mask = ::umask(0);  // mkdtemp makes it 0700; OUTDIR gets the usual mode
    ::umask(mask);
    ::chmod(name.c_str(), 0777 & ~mask);
  }
}

StagedDirectory::~StagedDirectory() {
  std::error_code ignored;
  if (!staging_.empty()) fs::remove_all(staging_, ignored);
}

void StagedDirectory::write(const std::string& name, const std::function<void(const std::string&)>& write) {
  names_.push_back(name);
  const std::string path = (staging_ / name).string();
  try {
    write(path);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind(path + ":", 0) != 0) throw;
    throw Error(why.replace(0, path.size(), (fs::path(out_) / name).string()));
  }
}

void StagedDirectory::commit() {
  if (exists_) {
    move_out_of_staging(staging_, out_, names_);
  } else {
    std::error_code ec;
    fs::rename(staging_, target_, ec);
    if (ec) throw Error(out_ + ": cannot rename the sequence into place (" + ec.message() + ")");
  }
  held_.release();  // complete: keep it
  made_.keep();
  staging_.clear();
}

}  // namespace glsurf::app
