// Output files that never end up partial: each is written to a temporary name
// beside its target and renamed into place only when every file of the batch
// has been written; whatever is not committed is removed again.
//
//   OutputFiles files;
//   files.add("matches.txt", false, [&](std::ostream& out) { ... });
//   files.add("H.txt", false, [&](std::ostream& out) { ... });
//   files.commit();  // both appear, or (on an exception before) neither
//
// Targets that exist and are not regular files (/dev/null, a pipe), or that
// are named under /dev or /proc (/dev/stdout, even when it leads to a regular
// file), cannot be replaced and are written directly. "-", and a name for
// the file that standard output or error has open (/dev/stdout with `>
// file`), are written through that stream, so that the process's own lines
// on it follow instead of overwriting. Both are written by commit(), before
// any file is renamed into place (their contents are held until then), the
// devices first: a batch that fails before its commit writes none of them,
// a device that refuses its output leaves the standard streams unwritten,
// and any of them failing leaves the files unrenamed. Another
// symbolic link is followed, also a dangling one: the file it points to is
// written, not the link.
// Two outputs of one batch may not name the same file.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace glsurf {

// Paths removed if the process is ended by SIGINT, SIGTERM or SIGHUP while
// they are held, so that an interrupted run leaves no temporary and no part
// of an output behind (SIGKILL still does: nothing can run then). A hold
// installs the handler for each of these signals whose action is the
// default; one that is ignored (nohup) or that the application handles
// itself is left alone. The handler unlinks the held files, then what is
// directly in the held directories (their subdirectories stay) and those
// directories, then the Created ones that are (then) empty, and ends the
// process by the same signal. OutputFiles holds its temporaries,
// MadeDirectories the directories made for an output, and warp its staging
// directory. Only what this process made is ever held.
//
//   RemoveOnSignal staging(dir, RemoveOnSignal::Directory);
//   ...
//   staging.release();  // done: keep it
class RemoveOnSignal {
 public:
  enum Kind {
    File,       // unlinked
    Directory,  // emptied (one level) and removed
    Created     // removed if empty (a parent made for the output), after the others
  };
  RemoveOnSignal() = default;
  // Throws glsurf::Error when the path is too long or too many are held.
  explicit RemoveOnSignal(const std::string& path, Kind kind = File);
  RemoveOnSignal(RemoveOnSignal&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  RemoveOnSignal& operator=(RemoveOnSignal&& other) noexcept;
  ~RemoveOnSignal() { release(); }
  void release();  // stops holding the path; never removes it

 private:
  int slot_ = -1;
};

// The directories a run makes for its output, made one level at a time so
// that only those its own mkdir made count as its own: not one that was
// there ("a/../there" with a new a), nor one another run made meanwhile
// (EEXIST). Each is held as RemoveOnSignal::Created, and on destruction those
// still empty are removed again, innermost first, unless keep() was called.
class MadeDirectories {
 public:
  MadeDirectories() = default;
  MadeDirectories(const MadeDirectories&) = delete;
  MadeDirectories& operator=(const MadeDirectories&) = delete;
  ~MadeDirectories();
  // Makes every missing directory of `path` ("." and ".." are stepped
  // through); returns 0, or the errno of the mkdir that failed.
  int make(const std::filesystem::path& path);
  void keep();  // the run succeeded: they stay, and are no longer held

 private:
  std::vector<std::filesystem::path> made_;
  std::vector<RemoveOnSignal> held_;
  bool keep_ = false;
};

class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();  // removes the temporaries of an uncommitted batch

  // Runs `write` into the file's temporary; throws glsurf::Error naming
  // `path` if it cannot be written (the batch's other files stay pending).
  void add(const std::string& path, bool binary, const std::function<void(std::ostream&)>& write);
  // Renames every pending file into place.
  void commit();

 private:
  struct Pending {
    std::string temporary, target, path;  // path: as the user gave it, for messages
    std::filesystem::path same;           // target's canonical form, to spot repeats
    RemoveOnSignal held;                  // the temporary, until renamed or removed
  };
  std::vector<Pending> pending_;
  struct Direct {  // written in place by commit()
    std::string path;
    bool binary = false;
    std::string content;
  };
  std::vector<Direct> direct_;
};

// 1 or 2 when `path` is "-" (standard output) or names the file that
// standard output or standard error already has open (/dev/stdout, or the
// file of `> file`), 0 otherwise.
int standard_stream_of(const std::string& path);

// "WHAT: write failed", with the system's reason where the failed write left
// one (`error`, errno cleared before the write): "No space left on device".
std::string write_failed(const std::string& what, int error);

// Flushes standard output; throws glsurf::Error "standard output: write
// failed (...)" when that, or an earlier write to it, failed. A command calls
// it before it commits its outputs, so that a report that never arrived
// fails the run with nothing left behind.
void flush_standard_output();

// `text` on one line, for an error message: newlines as \n and other control
// bytes as \xNN (a NUL would also end the message's C string there).
std::string one_line(const std::string& text);

// Throws glsurf::Error "PATH: ..." when `path` cannot be written as add()
// would write it (a directory, a missing or read-only directory): for a
// command to check its outputs before its work rather than after. A
// temporary is created and removed again; nothing else is touched.
void check_writable(const std::string& path);

// The file that add() would write for `path`, in a canonical form (links
// followed, "./" and ".." resolved): two outputs with the same identity are
// one file. Standard output ("-", /dev/stdout) and standard error are one
// each, unless they are /dev/null. Empty for another output written in
// place (/dev/null, a pipe), which two outputs may share.
std::filesystem::path output_identity(const std::string& path);

// Temporaries are named TARGET + temporary_marker(), ".glsurf-tmp.NS.PID"
// (NS: this boot's pid namespace, its inode and the boot id), and
// warp stages in ".glsurf_warp.NS.PID.XXXXXX": names no other program makes,
// from which a later run tells whether their writer still runs.
std::string pid_namespace();
std::string temporary_marker();

// Removes from `dir` what glsurf runs killed outright (SIGKILL, a lost node)
// left there: temporaries and warp's staging directories of this user whose
// process, in this pid namespace, no longer runs. A live run's, another
// namespace's (it cannot be asked) and anything not made by glsurf stay.
// OutputFiles and check_writable sweep each output's directory first; each
// removal is told to the reporter set here (none by default).
void remove_stale_temporaries(const std::string& dir);
void set_stale_temporary_reporter(std::function<void(const std::string&)> report);

// An exclusive lock on an output directory or database file for the life of
// the object, so that two runs never write a mixture of their results into
// one place. It is the kernel's (flock on the directory or file itself, which
// SQLite's own fcntl locks leave alone): nothing is written, and a run killed
// outright holds it no longer. Throws glsurf::Error "PATH: another glsurf run
// (process PID) is writing into it ..." when held.
class OutputLock {
 public:
  explicit OutputLock(const std::string& path);
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

 private:
  int fd_ = -1;
};

// One file: OutputFiles with a single add() and commit().
void write_file_atomically(const std::string& path, bool binary,
                           const std::function<void(std::ostream&)>& write);

}  // namespace glsurf
