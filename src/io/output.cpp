#include "io/output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>

#include "gl/error.hpp"

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
  errno = 0;
  write(out);
  out.flush();
  if (!out) throw Error(write_failed(path, errno));
}

}  // namespace

std::string write_failed(const std::string& what, int error) {
  return what + ": write failed" + (error != 0 ? std::string(" (") + std::strerror(error) + ")" : "");
}

void flush_standard_output() {
  const bool failed_before = std::ferror(stdout);
  errno = 0;  // a failed write's reason, read at once below (an earlier one's is gone by now)
  if (std::fflush(stdout) != 0 || failed_before) throw Error(write_failed("standard output", errno));
}

std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

// OutputFiles::add writes such a file through that stream: opened again, it
// would have its own position, and the process's own lines on the stream
// would overwrite what was written through the name.
int standard_stream_of(const std::string& path) {
  if (path == "-") return 1;
  struct stat named {};
  if (::stat(path.c_str(), &named) != 0) return 0;
  for (const int fd : {1, 2}) {
    struct stat open_file {};
    if (::fstat(fd, &open_file) == 0 && open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino)
      return fd;
  }
  return 0;
}

namespace {

// Where `path` is written: in place (devices, pipes, what /dev/stdout and the
// like lead to, even a regular file: `-o /dev/stdout >> all.txt`), or by a
// temporary beside `target` renamed onto it (a regular file or a new name; a
// link to a regular file: the file is replaced, the link kept).
struct Destination {
  bool in_place;
  std::string target;
};

Destination destination_of(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);  // follows links
  if (path == "-") return {true, path};                    // standard output
  if (fs::is_directory(status)) throw Error(path + ": is a directory");
  const bool special = path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
  if (fs::exists(status) && (special || !fs::is_regular_file(status))) return {true, path};
  if (fs::exists(status) && fs::is_symlink(fs::symlink_status(path, error))) {
    const fs::path resolved = fs::canonical(path, error);
    if (!error) return {false, resolved.string()};
  }
  // A dangling link is followed too: the file it names is created and the
  // link kept, as when the file exists.
  fs::path at = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(at, error)); ++hops) {
    if (hops == 40) throw Error(path + ": too many levels of symbolic links");
    const fs::path next = fs::read_symlink(at, error);
    if (error) break;
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  return {false, at.string()};
}

}  // namespace

std::string pid_namespace() {
  // The pid namespace's inode ("pid:[4026531836]"), the same on every host
  // for the initial one, and this boot's id: two hosts sharing a file system
  // never take each other's processes for their own.
  char link[64] = {};
  const ssize_t n = ::readlink("/proc/self/ns/pid", link, sizeof link - 1);
  std::string digits;
  for (ssize_t k = 0; k < n; ++k) {
    if (link[k] >= '0' && link[k] <= '9') digits += link[k];
  }
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string id;
  boot >> id;
  id = id.substr(0, 8);
  if (digits.empty() || id.size() != 8 || id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "0";
  return digits + "-" + id;
}

std::string temporary_marker() { return ".glsurf-tmp." + pid_namespace() + "." + std::to_string(::getpid()); }

namespace {

std::function<void(const std::string&)>& stale_reporter() {
  static std::function<void(const std::string&)> report;
  return report;
}

// "NS.PID" at `at` of `name`, up to `end`: whether it names a process of this
// pid namespace that no longer runs (another namespace's cannot be asked).
bool dead_process(const std::string& name, size_t at, size_t end) {
  const size_t dot = name.find('.', at);
  if (dot == std::string::npos || dot >= end) return false;
  const std::string ns = name.substr(at, dot - at), pid = name.substr(dot + 1, end - dot - 1);
  // "0": this process cannot tell its namespace, so it never judges any.
  if (ns == "0" || ns != pid_namespace() || pid.empty() || pid.size() > 9 ||
      pid.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const pid_t process = static_cast<pid_t>(std::stol(pid));
  return process > 0 && process != ::getpid() && ::kill(process, 0) != 0 && errno == ESRCH;
}

// Whether `entry` in `dir` is this user's, of the type asked (not a link).
bool ours(const fs::path& entry, bool directory) {
  struct stat info {};
  if (::lstat(entry.c_str(), &info) != 0 || info.st_uid != ::geteuid()) return false;
  return directory ? S_ISDIR(info.st_mode) : S_ISREG(info.st_mode);
}

// TARGET.glsurf-tmp.NS.PID (temporary_marker). A name within a few bytes of
// NAME_MAX (255) has no room for
// the suffix: its temporary keeps the name's start and adds a hash of the
// whole name, so that two long names that differ only at the end still get
// two temporaries.
std::string temporary_for(const std::string& target) {
  const std::string suffix = temporary_marker();
  const fs::path path(target);
  std::string name = path.filename().string();
  if (name.empty() || name.size() + suffix.size() <= NAME_MAX) return target + suffix;
  char hash[20];
  std::snprintf(hash, sizeof hash, ".%016zx", std::hash<std::string>{}(name));
  name = name.substr(0, NAME_MAX - suffix.size() - std::strlen(hash)) + hash;
  return (path.parent_path() / (name + suffix)).string();
}

// Makes `temporary` a new empty regular file of ours: whatever is at that name
// (a killed run's leftover, a link planted there) is unlinked first, and the
// file is created exclusively, never through a link.
void create_temporary(const std::string& temporary, const std::string& path) {
  ::unlink(temporary.c_str());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
  ::close(fd);
}

// The paths RemoveOnSignal holds, in fixed slots that the signal handler can
// read without locks or allocation: a slot is Free, being Filled by a hold,
// or Held (its path and kind complete before the state says so).
enum SlotState : int { Free, Filled, Held };
struct Slot {
  std::atomic<int> state{Free};
  RemoveOnSignal::Kind kind = RemoveOnSignal::File;
  char path[PATH_MAX] = {};
};
constexpr int kSlots = 256;
Slot g_slots[kSlots];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Unlinks what is directly in `dir` (a subdirectory stays), by system calls
// alone: open, getdents64, unlinkat, close.
void empty_directory(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(dirent64) char buffer[4096];
  for (ssize_t n; (n = ::getdents64(fd, buffer, sizeof buffer)) > 0;) {
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
      at += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      ::unlinkat(fd, name, 0);
    }
  }
  ::close(fd);
}

// Files first, then directories, then the Created directories. Only
// async-signal-safe calls (those of empty_directory, unlink, rmdir,
// sigaction, raise) and lock-free atomics.
void remove_held(int signal) {
  const auto held = [](const Slot& slot, RemoveOnSignal::Kind kind) {
    return slot.state.load(std::memory_order_acquire) == Held && slot.kind == kind;
  };
  for (Slot& slot : g_slots) {
    if (held(slot, RemoveOnSignal::File)) ::unlink(slot.path);
  }
  for (Slot& slot : g_slots) {
    if (!held(slot, RemoveOnSignal::Directory)) continue;
    empty_directory(slot.path);
    ::rmdir(slot.path);
  }
  // As many rounds as there are Created directories, so that nested ones go
  // whatever their slots' order (each round removes at least the deepest;
  // rmdir of a directory that is gone or not empty fails harmlessly).
  int created = 0;
  for (const Slot& slot : g_slots) created += held(slot, RemoveOnSignal::Created);
  for (int round = 0; round < created; ++round) {
    for (Slot& slot : g_slots) {
      if (held(slot, RemoveOnSignal::Created)) ::rmdir(slot.path);
    }
  }
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
  ::raise(signal);  // delivered when the handler returns: the usual exit status
}

// Takes over each signal whose action is the default; one that is ignored
// (nohup) or handled by someone else (an application using glsurf) is left
// as it is. Racing holds at worst install the same handler twice.
void install_handlers() {
  for (const int signal : kSignals) {
    struct sigaction old {};
    if (::sigaction(signal, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_held;
    sigemptyset(&action.sa_mask);
    for (const int other : kSignals) sigaddset(&action.sa_mask, other);  // one cleanup at a time
    ::sigaction(signal, &action, nullptr);
  }
}

}  // namespace

void set_stale_temporary_reporter(std::function<void(const std::string&)> report) {
  stale_reporter() = std::move(report);
}

void remove_stale_temporaries(const std::string& dir) {
  static const std::string file_marker = ".glsurf-tmp.", staging_marker = ".glsurf_warp.";
  std::error_code error;
  const fs::path directory = dir.empty() ? fs::path(".") : fs::path(dir);
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const fs::path entry = it->path();
    const std::string name = entry.filename().string();
    bool removed = false;
    // A feature or match file's temporary: NAME.glsurf-tmp.NS.PID.
    const size_t mark = name.rfind(file_marker);
    if (mark != std::string::npos && mark > 0 && dead_process(name, mark + file_marker.size(), name.size()) &&
        ours(entry, false)) {
      removed = ::unlink(entry.c_str()) == 0;
    }
    // warp's staging directory, .glsurf_warp.NS.PID.XXXXXX: the images and
    // homographies it writes, then the directory if that emptied it.
    if (name.rfind(staging_marker, 0) == 0 && name.size() > staging_marker.size() + 7 &&
        dead_process(name, staging_marker.size(), name.size() - 7) && ours(entry, true)) {
      remove_stale_temporaries(entry.string());  // a file it was writing when killed
      std::error_code inner;
      for (fs::directory_iterator file(entry, inner), last; !inner && file != last; file.increment(inner)) {
        const std::string f = file->path().filename().string();
        const bool warp_file =
            (f.rfind("img", 0) == 0 && f.size() > 7 && f.compare(f.size() - 4, 4, ".png") == 0) ||
            f.rfind("H1to", 0) == 0;
        if (warp_file && ours(file->path(), false)) ::unlink(file->path().c_str());
      }
      removed = ::rmdir(entry.c_str()) == 0;
    }
    if (removed && stale_reporter()) {
      stale_reporter()(entry.string() + ": removed, a temporary of a glsurf run that no longer runs");
    }
  }
}

namespace {

// remove_stale_temporaries, once per directory and process: a batch of many
// files into one directory reads it once.
void sweep_once(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  bool first = false;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    first = swept.insert(dir).second;
  }
  if (first) remove_stale_temporaries(dir);
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path, Kind kind) {
  std::error_code error;
  std::string absolute = fs::absolute(path, error).string();  // the process may change directory
  if (error) absolute = path;
  if (absolute.size() >= PATH_MAX) throw Error(path + ": path too long");
  install_handlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = Free;
    if (!g_slots[i].state.compare_exchange_strong(expected, Filled, std::memory_order_acquire)) continue;
    std::memcpy(g_slots[i].path, absolute.c_str(), absolute.size() + 1);
    g_slots[i].kind = kind;
    g_slots[i].state.store(Held, std::memory_order_release);
    slot_ = i;
    return;
  }
  throw Error(path + ": too many temporary files at once (" + std::to_string(kSlots) + ")");
}

RemoveOnSignal& RemoveOnSignal::operator=(RemoveOnSignal&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void RemoveOnSignal::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(Free, std::memory_order_release);
  slot_ = -1;
}

MadeDirectories::~MadeDirectories() {
  for (auto p = made_.rbegin(); p != made_.rend() && !keep_; ++p) ::rmdir(p->c_str());  // only if empty
}

int MadeDirectories::make(const fs::path& path) {
  fs::path at;
  for (const fs::path& part : path) {
    at /= part;
    const bool root = part == at.root_name() || part == at.root_directory();
    if (part.empty() || part == "." || part == ".." || root) continue;
    if (::mkdir(at.c_str(), 0777) == 0) {
      made_.push_back(at);
      held_.emplace_back(at.string(), RemoveOnSignal::Created);
    } else if (errno != EEXIST) {
      return errno;
    }
  }
  return 0;
}

void MadeDirectories::keep() {
  keep_ = true;
  for (RemoveOnSignal& h : held_) h.release();
}

fs::path output_identity(const std::string& path) {
  // One standard stream cannot take two outputs: no reader could tell where
  // one ends (unless it is /dev/null). Standard error open on the same file
  // as standard output counts as standard output.
  if (const int fd = standard_stream_of(path)) {
    struct stat stream {
    }, null_device{};
    const bool discarded = ::fstat(fd, &stream) == 0 && ::stat("/dev/null", &null_device) == 0 &&
                           stream.st_dev == null_device.st_dev && stream.st_ino == null_device.st_ino;
    if (!discarded) return fd == 1 ? "/dev/stdout" : "/dev/stderr";
  }
  const Destination d = destination_of(path);
  if (d.in_place) return {};
  // "x.txt" and "./x.txt" are one file, also before it exists (weakly_canonical
  // of a relative path to nothing that exists yet stays as given). Links are
  // resolved before ".." is: link/../x.txt need not be ./x.txt.
  std::error_code error;
  fs::path same = fs::weakly_canonical(fs::absolute(d.target), error);
  if (error) same = fs::absolute(d.target).lexically_normal();
  return same;
}

void check_writable(const std::string& path) {
  const Destination d = destination_of(path);
  if (d.in_place) return;
  sweep_once(fs::path(d.target).parent_path().string());
  const std::string temporary = temporary_for(d.target);
  const RemoveOnSignal held(temporary);
  create_temporary(temporary, path);
  std::remove(temporary.c_str());
}

OutputFiles::~OutputFiles() {
  for (const Pending& p : pending_) std::remove(p.temporary.c_str());
}

void OutputFiles::add(const std::string& path, bool binary, const std::function<void(std::ostream&)>& write) {
  const Destination d = destination_of(path);
  if (d.in_place) {
    std::ostringstream content;
    write(content);
    direct_.push_back({path, binary, content.str()});
    return;
  }
  const std::string& target = d.target;
  const fs::path same = output_identity(path);
  for (const Pending& other : pending_) {
    if (other.same == same) throw Error(path + ": named for two outputs (" + other.path + ")");
  }
  sweep_once(fs::path(target).parent_path().string());
  Pending p{temporary_for(target), target, path, same, {}};
  p.held = RemoveOnSignal(p.temporary);
  try {
    create_temporary(p.temporary, path);
    write_to(p.temporary, path, binary, false, write);
  } catch (...) {
    std::remove(p.temporary.c_str());
    throw;
  }
  pending_.push_back(std::move(p));
}

void OutputFiles::commit() {
  // Devices and pipes named as files first, then standard output and error:
  // where a device refuses its output (/dev/full), nothing has gone to the
  // standard streams yet.
  for (const bool streams : {false, true}) {
    for (const Direct& d : direct_) {
      const int fd = standard_stream_of(d.path);
      if ((fd != 0) != streams) continue;
      const auto write = [&](std::ostream& out) {
        out.write(d.content.data(), static_cast<std::streamsize>(d.content.size()));
      };
      if (fd != 0) {
        std::ostream& out = fd == 1 ? std::cout : std::cerr;
        std::fflush(nullptr);  // what printf wrote so far comes first
        errno = 0;
        write(out);
        out.flush();
        if (!out) throw Error(write_failed(d.path, errno));
      } else {
        write_to(d.path, d.path, d.binary, true, write);
      }
    }
  }
  direct_.clear();
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (std::rename(pending_[i].temporary.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
      throw Error(pending_.front().path + ": cannot rename into place (" + why + ")");
    }
    pending_[i].held.release();  // renamed: nothing left to remove
  }
  pending_.clear();
}

void write_file_atomically(const std::string& path, bool binary,
                           const std::function<void(std::ostream&)>& write) {
  OutputFiles files;
  files.add(path, binary, write);
  files.commit();
}

namespace {

// The process holding a lock on the file with `info`'s device and inode, as
// /proc/locks lists it ("1: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ..."); 0
// where it does not say.
long lock_holder(const struct stat& info) {
  std::ifstream locks("/proc/locks");
  char wanted[64];
  std::snprintf(wanted, sizeof wanted, "%02x:%02x:%lu", major(info.st_dev), minor(info.st_dev),
                static_cast<unsigned long>(info.st_ino));
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, device;
    long pid = 0;
    if (fields >> number >> kind >> mode >> access >> pid >> device && device == wanted) return pid;
  }
  return 0;
}

}  // namespace

OutputLock::OutputLock(const std::string& dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(dir + ": cannot open it to lock it (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int error = errno;
  struct stat info {};
  const long holder = error == EWOULDBLOCK && ::fstat(fd_, &info) == 0 ? lock_holder(info) : 0;
  ::close(fd_);
  fd_ = -1;
  if (error != EWOULDBLOCK) throw Error(dir + ": cannot lock it (" + std::strerror(error) + ")");
  throw Error(dir + ": another glsurf run" + (holder > 0 ? " (process " + std::to_string(holder) + ")" : "") +
              " is writing into it; wait for it to end, or give another directory");
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace glsurf
