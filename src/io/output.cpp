#include "io/output.hpp"

#include "gl/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>

namespace glsurf {

namespace fs = std::filesystem;

namespace {

// Runs `write` into `file` (appending: in place, /dev/stdout redirected with
// >> must not be truncated); throws naming `path` when a write failed.
void write_to(const std::string& file, const std::string& path, bool binary, bool append,
              const std::function<void(std::ostream&)>& write) {
  std::ios::openmode mode = std::ios::out;
  if (binary) mode |= std::ios::binary;
  if (append) mode |= std::ios::app;
  std::ofstream out(file, mode);
  if (!out) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
  write(out);
  out.flush();
  if (!out) throw Error(path + ": write failed");
}

}  // namespace

OutputFiles::~OutputFiles() {
  for (const Pending& p : pending_) std::remove(p.temporary.c_str());
}

void OutputFiles::add(const std::string& path, bool binary, const std::function<void(std::ostream&)>& write) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);  // follows links
  if (fs::is_directory(status)) throw Error(path + ": is a directory");
  // Devices and pipes cannot be replaced; nor can what /dev/stdout and the
  // like lead to, even a regular file (`-o /dev/stdout >> all.txt`).
  const bool special = path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
  if (fs::exists(status) && (special || !fs::is_regular_file(status))) {
    write_to(path, path, binary, true, write);
    return;
  }
  // A link to a regular file: replace the file, keep the link.
  std::string target = path;
  if (fs::exists(status) && fs::is_symlink(fs::symlink_status(path, error))) {
    const fs::path resolved = fs::canonical(path, error);
    if (!error) target = resolved.string();
  }
  // "x.txt" and "./x.txt" are one file, also before it exists (weakly_canonical
  // of a relative path to nothing that exists yet stays as given). Links are
  // resolved before ".." is: link/../x.txt need not be ./x.txt.
  fs::path same = fs::weakly_canonical(fs::absolute(target), error);
  if (error) same = fs::absolute(target).lexically_normal();
  for (const Pending& other : pending_) {
    if (other.same == same) throw Error(path + ": named for two outputs (" + other.path + ")");
  }
  Pending p{target + ".tmp" + std::to_string(::getpid()), target, path, same};
  try {
    write_to(p.temporary, path, binary, false, write);
  } catch (...) {
    std::remove(p.temporary.c_str());
    throw;
  }
  pending_.push_back(p);
}

void OutputFiles::commit() {
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (std::rename(pending_[i].temporary.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
      throw Error(pending_.front().path + ": cannot rename into place (" + why + ")");
    }
  }
  pending_.clear();
}

void write_file_atomically(const std::string& path, bool binary, const std::function<void(std::ostream&)>& write) {
  OutputFiles files;
  files.add(path, binary, write);
  files.commit();
}

}  // namespace glsurf
