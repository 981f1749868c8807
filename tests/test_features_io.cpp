// Feature files: both formats read back what was written, bit for bit.
// (KeyPoint aggregates below: x, y, size, angle, response, octave, laplacian.)
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>

#include "gl/error.hpp"
#include "io/features.hpp"
#include "io/output.hpp"

using namespace glsurf;

TEST_SUITE("cpu") {
  TEST_CASE("txt and bin feature files round-trip every field exactly") {
    std::vector<KeyPoint> ks(3);
    ks[0] = {1.25f, 2.5f, 9.0f, -1.0f, 12345.678f, 1, 0};
    ks[1] = {0.1f, 799.123456f, 50.5f, 359.9f, 1e-3f, -1, 3};
    ks[2] = {3.3333333f, 1e6f, 1.0f, 0.0f, 3.4e38f, -1, 7};
    Features features;
    features.keypoints = ks;
    features.descriptor_size = 2;
    features.descriptors = {0.5f, -0.25f, 1e-7f, 0.7071068f, -1.0f, 0.333333343f};
    const auto dir = std::filesystem::temp_directory_path();
    for (const FeatureFormat f : {FeatureFormat::Txt, FeatureFormat::Bin}) {
      const std::string path = (dir / (f == FeatureFormat::Txt ? "glsurf_rt.txt" : "glsurf_rt.bin")).string();
      write_features_file(path, features, f);
      const Features read = read_features_file(path);
      const std::vector<KeyPoint>& back = read.keypoints;
      std::remove(path.c_str());
      CHECK(read.descriptor_size == 2);
      CHECK(read.descriptors == features.descriptors);
      REQUIRE(back.size() == ks.size());
      for (size_t i = 0; i < ks.size(); ++i) {
        CHECK(back[i].x == ks[i].x);
        CHECK(back[i].y == ks[i].y);
        CHECK(back[i].size == ks[i].size);
        CHECK(back[i].angle == ks[i].angle);
        CHECK(back[i].response == ks[i].response);
        CHECK(back[i].laplacian == ks[i].laplacian);
        CHECK(back[i].octave == ks[i].octave);
      }
    }
  }

  TEST_CASE("the txt format is N D, then one line per keypoint with its D values") {
    KeyPoint k;
    k.x = 1.5f;
    k.y = 2.0f;
    k.size = 9.0f;
    k.response = 100.0f;
    k.laplacian = -1;
    k.octave = 0;
    Features f;
    f.keypoints = {k};
    f.descriptor_size = 2;
    f.descriptors = {0.25f, -0.5f};
    std::ostringstream out;
    write_features(out, f, FeatureFormat::Txt);
    CHECK(out.str() == "1 2\n1.5 2 9 -1 100 -1 0 0.25 -0.5\n");
  }

  namespace {

  // Writes `bytes` to a scratch file and reads it back as a feature file.
  Features read_bytes(const std::string& bytes) {
    const std::string path = (std::filesystem::temp_directory_path() / "glsurf_bad_features").string();
    {
      std::ofstream out(path, std::ios::binary);
      out << bytes;
    }
    struct Remove {
      std::string path;
      ~Remove() { std::remove(path.c_str()); }
    } remove{path};
    return read_features_file(path);
  }

  // The bin format of `features`, as write_features makes it.
  std::string bin_of(const Features& features) {
    std::ostringstream out;
    write_features(out, features, FeatureFormat::Bin);
    return out.str();
  }

  }  // namespace

  TEST_CASE(
      "a feature file that is not exactly what its header declares is refused, and the message says where") {
    // A good file of each format first, so the refusals below are about the change.
    CHECK(read_bytes("2 1\n1 2 9 0 5 1 0 0.5\n3 4 9 0 5 -1 1 -0.5\n\n").keypoints.size() == 2);
    const struct {
      const char* text;
      const char* message;
    } bad[] = {
        {"", "not a feature file"},
        {"-1 0\n", "not a feature file"},
        {"1 0 7\n1 2 9 0 5 1 0\n", "not a feature file"},
        {"1 5000\n", "implausible descriptor size 5000"},
        {"2 0\n1 2 9 0 5 1 0\n", "truncated feature file (1 of the 2 keypoints"},
        {"1 0\n1 2 9 0 5 1 0\n3 4 9 0 5 1 0\n", "line 3: more keypoints than the 1 its header declares"},
        {"2 0\n1 2 9 0 5 1 0 3 4 9 0 5 1 0\n", "line 2: more than the 7 values of a keypoint"},
        {"1 2\n1 2 9 0 5 1 0 0.5\n", "line 2: 8 values, a keypoint has 9"},
        {"1 0\nnan 2 9 0 5 1 0\n", "line 2: x 'nan' is not a finite number"},
        {"1 0\n1 2 1e50 0 5 1 0\n", "line 2: size '1e50' is not a finite number"},
        {"1 0\n1 2 9 0 inf 1 0\n", "line 2: response 'inf' is not a finite number"},
        {"1 0\n1 2 9 0 5 1.5 0\n", "line 2: laplacian '1.5' is not an integer"},
        {"1 0\n1 2 9 0 5 1 9999999999\n", "line 2: octave '9999999999' is not an integer"},
        {"1 1\n1 2 9 0 5 1 0 0.5x\n", "line 2: descriptor value 1 '0.5x' is not a finite number"},
    };
    for (const auto& b : bad) {
      CAPTURE(b.text);
      CHECK_THROWS_WITH_AS(read_bytes(b.text), doctest::Contains(b.message), Error);
    }
    // A control byte in a token is shown escaped: a NUL ended the message there.
    const std::string with_nul("1 1\n1 2 9 0 5 1 0 0.5\0\n", 23);
    CHECK_THROWS_WITH_AS(read_bytes(with_nul),
                         doctest::Contains("descriptor value 1 '0.5\\x00' is not a finite number"), Error);

    KeyPoint k;
    k.size = 9.0f;
    Features one;
    one.keypoints = {k, k};
    one.descriptor_size = 1;
    one.descriptors = {0.5f, 0.25f};
    const std::string good = bin_of(one);
    CHECK(read_bytes(good).keypoints.size() == 2);
    // Cut in the header (8 magic bytes, then N and D), in a record, or followed by more.
    CHECK_THROWS_WITH_AS(read_bytes(good.substr(0, 10)),
                         doctest::Contains("truncated feature file (in its header)"), Error);
    CHECK_THROWS_WITH_AS(read_bytes(good.substr(0, good.size() - 2)),
                         doctest::Contains("keypoint 2 of 2: truncated feature file"), Error);
    CHECK_THROWS_WITH_AS(read_bytes(good + "x"),
                         doctest::Contains("more data than the 2 keypoints its header declares"), Error);
    // A value that is not finite, which the txt format could not carry either.
    one.keypoints[1].response = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH_AS(read_bytes(bin_of(one)),
                         doctest::Contains("keypoint 2 of 2: response is not a finite number"), Error);
  }

  TEST_CASE(
      "a file is taken for a feature file when its first line is one the reader takes, and never for an "
      "image") {
    const std::string path = (std::filesystem::temp_directory_path() / "glsurf_sniffed").string();
    struct Remove {
      std::string path;
      ~Remove() { std::remove(path.c_str()); }
    } remove{path};
    const auto sniff = [&](const std::string& bytes, bool readable) {
      {
        std::ofstream out(path, std::ios::binary);
        out << bytes;
      }
      bool read = true;
      try {
        read_features_file(path);
      } catch (const Error&) {
        read = false;
      }
      INFO(bytes);
      CHECK(read == readable);
      return is_feature_file(path);
    };
    const std::string body = "1.5 2 9 -1 100 -1 0 0.25 -0.5\n";
    for (const char* head : {"1 2\n", "1\t2\n", " 1  2 \r\n", "+1 +2\n", "1\v2\n", "01 2\n"})
      CHECK(sniff(head + body, true));
    // Padded beyond the first 64 bytes, which the sniff once read: `match`
    // took it for an image that was "not a supported image".
    CHECK(sniff("1" + std::string(70, ' ') + "2\n" + body, true));
    // An empty set, its header alone with no newline.
    CHECK(sniff("0 2", true));
    CHECK(sniff("-0 2", true));
    // Not a header of two whole numbers, or an image's first bytes.
    for (const char* head : {"1 2 3\n", "1\n", "1 -2\n", "1.0 2\n", "P5\n1 2\n255\n", "\x89PNG\r\n"}) {
      CHECK_FALSE(sniff(head + body, false));
    }
  }

  TEST_CASE("a failed write leaves no file behind") {
    const std::string path = (std::filesystem::temp_directory_path() / "glsurf_never.txt").string();
    std::remove(path.c_str());
    CHECK_THROWS_AS(write_file_atomically(path, false,
                                          [](std::ostream& out) {
                                            out << "partial";
                                            throw Error("disk full, say");
                                          }),
                    Error);
    CHECK(!std::filesystem::exists(path));
    CHECK_THROWS_WITH_AS(write_features_file("/nonexistent_dir/x.txt", Features{}, FeatureFormat::Txt),
                         doctest::Contains("/nonexistent_dir/x.txt"), Error);
  }

  namespace {

  std::string contents(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // A fresh, empty directory for one test.
  std::filesystem::path scratch(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
  }

  }  // namespace

  TEST_CASE("a batch of outputs appears whole or not at all") {
    const auto dir = scratch("glsurf_batch");
    {
      OutputFiles files;
      files.add((dir / "a.txt").string(), false, [](std::ostream& out) { out << "a"; });
      CHECK_THROWS_AS(
          files.add((dir / "missing" / "b.txt").string(), false, [](std::ostream& out) { out << "b"; }),
          Error);
    }  // not committed: a.txt's temporary goes too
    CHECK(std::filesystem::is_empty(dir));
    OutputFiles files;
    files.add((dir / "a.txt").string(), false, [](std::ostream& out) { out << "a"; });
    files.add((dir / "b.txt").string(), false, [](std::ostream& out) { out << "b"; });
    CHECK(!std::filesystem::exists(dir / "a.txt"));  // nothing before commit
    files.commit();
    CHECK(contents(dir / "a.txt") == "a");
    CHECK(contents(dir / "b.txt") == "b");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 2);

    // One file named twice (here through ".") is refused, before anything is written.
    OutputFiles twice;
    twice.add((dir / "c.txt").string(), false, [](std::ostream& out) { out << "c"; });
    CHECK_THROWS_WITH_AS(
        twice.add((dir / "." / "c.txt").string(), false, [](std::ostream& out) { out << "C"; }),
        doctest::Contains("named for two outputs"), Error);
    twice.commit();
    CHECK(contents(dir / "c.txt") == "c");

    // The same through relative names of a file that does not exist yet.
    {
      struct InDirectory {  // back to the test's directory whatever happens
        std::filesystem::path before = std::filesystem::current_path();
        ~InDirectory() { std::filesystem::current_path(before); }
      } in_dir;
      std::filesystem::current_path(dir);
      OutputFiles relative;
      relative.add("d.txt", false, [](std::ostream& out) { out << "d"; });
      CHECK_THROWS_WITH_AS(relative.add("./d.txt", false, [](std::ostream& out) { out << "D"; }),
                           doctest::Contains("named for two outputs"), Error);
      relative.commit();
    }
    CHECK(contents(dir / "d.txt") == "d");
  }

  // The temporary beside an output is named TARGET.glsurf-tmp.NS.PID, which for a name
  // of 255 bytes (the most a directory entry holds) is too long; such outputs
  // are still written, and two that differ only in their last byte do not
  // share a temporary.
  TEST_CASE("outputs with names of 255 bytes are written") {
    const auto dir = scratch("glsurf_long");
    const std::string stem(251, 'x');
    check_writable((dir / (stem + ".txt")).string());
    OutputFiles files;
    files.add((dir / (stem + ".txt")).string(), false, [](std::ostream& out) { out << "t"; });
    files.add((dir / (stem + ".txu")).string(), false, [](std::ostream& out) { out << "u"; });
    files.commit();
    CHECK(contents(dir / (stem + ".txt")) == "t");
    CHECK(contents(dir / (stem + ".txu")) == "u");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 2);
  }

  TEST_CASE("an output through a link replaces the linked file; a pipe is written, not replaced") {
    const auto dir = scratch("glsurf_links");
    std::ofstream(dir / "real.txt") << "old";
    std::filesystem::create_symlink(dir / "real.txt", dir / "link.txt");
    write_file_atomically((dir / "link.txt").string(), false, [](std::ostream& out) { out << "new"; });
    CHECK(std::filesystem::is_symlink(dir / "link.txt"));
    CHECK(contents(dir / "real.txt") == "new");

    // A pipe (like /dev/stdout or /dev/null, a file that cannot be replaced).
    const auto fifo = dir / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::filesystem::create_hard_link(fifo, dir / "alias");
    std::string received;
    std::thread reader([&] { received = contents(fifo); });
    write_file_atomically(fifo.string(), false, [](std::ostream& out) { out << "through"; });
    const bool kept = std::filesystem::is_fifo(fifo);
    if (!kept) std::ofstream(dir / "alias").flush();  // the pipe was replaced: let the reader finish
    reader.join();
    CHECK(kept);
    CHECK(received == "through");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 4);  // no temporaries left
  }

  TEST_CASE("a link or a leftover at the temporary's name is replaced, never written through") {
    const auto dir = scratch("glsurf_planted");
    std::ofstream(dir / "victim.txt") << "precious";
    const std::string temporary = (dir / "out.txt").string() + temporary_marker();
    std::filesystem::create_symlink(dir / "victim.txt", temporary);
    check_writable((dir / "out.txt").string());
    CHECK(contents(dir / "victim.txt") == "precious");
    CHECK(!std::filesystem::exists(dir / "out.txt"));
    std::filesystem::create_symlink(dir / "victim.txt", temporary);
    write_file_atomically((dir / "out.txt").string(), false, [](std::ostream& out) { out << "new"; });
    CHECK(contents(dir / "victim.txt") == "precious");
    CHECK(contents(dir / "out.txt") == "new");
    // A killed run's temporary with more in it than this run writes: nothing of it is kept.
    std::ofstream(temporary) << "a much longer leftover";
    write_file_atomically((dir / "out.txt").string(), false, [](std::ostream& out) { out << "short"; });
    CHECK(contents(dir / "out.txt") == "short");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 2);  // victim.txt, out.txt
  }

  TEST_CASE(
      "a dead run's temporaries are removed by the next output into their directory, and said; nothing "
      "else") {
    const auto dir = scratch("glsurf_stale");
    // A process that has ended: its id names no process (until reused).
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    REQUIRE(child > 0);
    REQUIRE(::waitpid(child, nullptr, 0) == child);
    const std::string ns = pid_namespace(), dead = std::to_string(child);
    const std::string stale = "a.txt.glsurf-tmp." + ns + "." + dead;
    const std::string live = "b.txt" + temporary_marker();                      // this process: running
    const std::string elsewhere = "c.txt.glsurf-tmp.1." + dead;                 // another pid namespace
    const std::string foreign = "d.txt.tmp" + dead;                             // not a name glsurf makes
    const std::string staging = ".glsurf_warp." + ns + "." + dead + ".abcdef";  // warp's, killed
    for (const std::string& name : {stale, live, elsewhere, foreign}) std::ofstream(dir / name) << "part";
    std::filesystem::create_directory(dir / staging);
    std::ofstream(dir / staging / "img1.png") << "part";
    std::ofstream(dir / staging / "H1to2p") << "part";
    std::ofstream(dir / staging / ("img3.png.glsurf-tmp." + ns + "." + dead)) << "part";  // being written
    std::vector<std::string> said;
    set_stale_temporary_reporter([&](const std::string& what) { said.push_back(what); });
    write_file_atomically((dir / "out.txt").string(), false, [](std::ostream& out) { out << "new"; });
    set_stale_temporary_reporter({});
    CHECK(!std::filesystem::exists(dir / stale));
    CHECK(!std::filesystem::exists(dir / staging));
    for (const std::string& name : {live, elsewhere, foreign}) CHECK(contents(dir / name) == "part");
    CHECK(contents(dir / "out.txt") == "new");
    REQUIRE(said.size() == 3);  // the stale file, the staging directory and the file being written in it
    CHECK(said[0].find("removed, a temporary of a glsurf run that no longer runs") != std::string::npos);
    // A staging directory with something else in it: its files go, it stays.
    std::filesystem::create_directory(dir / staging);
    std::ofstream(dir / staging / "img1.png") << "part";
    std::ofstream(dir / staging / "notes.txt") << "theirs";
    remove_stale_temporaries(dir.string());
    CHECK(!std::filesystem::exists(dir / staging / "img1.png"));
    CHECK(contents(dir / staging / "notes.txt") == "theirs");
  }

  TEST_CASE("check_writable refuses a directory and a missing directory, and leaves nothing") {
    const auto dir = scratch("glsurf_check");
    CHECK_THROWS_WITH_AS(check_writable(dir.string()), (dir.string() + ": is a directory").c_str(), Error);
    const std::string missing = (dir / "missing" / "x.json").string();
    CHECK_THROWS_WITH_AS(check_writable(missing),
                         (missing + ": cannot write (No such file or directory)").c_str(), Error);
    check_writable((dir / "x.json").string());
    CHECK(std::filesystem::is_empty(dir));
  }

  // Runs `child` in a forked process, SIGTERM's action the default there (the
  // test framework handles it), and returns the child's wait status.
  int in_child(const std::function<void()>& child) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::signal(SIGTERM, SIG_DFL);
      try {
        child();
      } catch (...) {
        ::_exit(99);  // never back into the test framework
      }
      ::_exit(0);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  TEST_CASE("an interrupt removes the held files, empties the held directories, and ends by that signal") {
    const auto dir = scratch("glsurf_signal");
    // The staging directory inside two parents made for it (held inner first:
    // the order of holds must not matter), and a made one someone else has
    // since put a file in.
    const std::string made = (dir / "made").string(), deeper = made + "/deeper",
                      staging = deeper + "/staging", shared = (dir / "shared").string(),
                      outdir = (dir / "outdir").string(), kept = (dir / "kept.txt").string(),
                      released = (dir / "released.txt").string(), temporary = (dir / "out.txt.tmp").string();
    const int status = in_child([&] {
      RemoveOnSignal held_deeper(deeper, RemoveOnSignal::Created), held_made(made, RemoveOnSignal::Created);
      RemoveOnSignal held_shared(shared, RemoveOnSignal::Created);
      std::filesystem::create_directories(deeper);
      std::filesystem::create_directory(shared);
      std::ofstream(shared + "/theirs.txt") << "not ours";
      RemoveOnSignal held_staging(staging, RemoveOnSignal::Directory);
      std::filesystem::create_directory(staging);
      std::ofstream(staging + "/img1.png") << "part";
      std::ofstream(staging + "/H1to2p") << "part";
      // A staging directory inside an OUTDIR that someone else writes into
      // meanwhile: theirs stays.
      std::filesystem::create_directory(outdir);
      RemoveOnSignal held_inner(outdir + "/.glsurf_warp.x", RemoveOnSignal::Directory);
      std::filesystem::create_directory(outdir + "/.glsurf_warp.x");
      std::ofstream(outdir + "/.glsurf_warp.x/img1.png") << "part";
      std::ofstream(outdir + "/img1.png") << "theirs";
      RemoveOnSignal held_file(temporary);
      std::ofstream(temporary) << "part";
      RemoveOnSignal held_released(released);
      std::ofstream(released) << "done";
      held_released.release();
      std::ofstream(kept) << "not held";
      ::raise(SIGTERM);
      ::_exit(7);  // not reached when the handler ends the process
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(!std::filesystem::exists(staging));
    CHECK(!std::filesystem::exists(made));
    CHECK(contents(shared + "/theirs.txt") == "not ours");
    CHECK(!std::filesystem::exists(temporary));
    CHECK(contents(outdir + "/img1.png") == "theirs");
    CHECK(std::distance(std::filesystem::directory_iterator(outdir), {}) == 1);
    CHECK(contents(released) == "done");
    CHECK(contents(kept) == "not held");
  }

  TEST_CASE("a signal the application handles itself, or ignores, is left to it") {
    const auto dir = scratch("glsurf_signal_theirs");
    const std::string file = (dir / "held.txt").string();
    const int status = in_child([&] {
      ::signal(SIGTERM, [](int) { ::_exit(42); });
      ::signal(SIGHUP, SIG_IGN);
      RemoveOnSignal held(file);
      std::ofstream(file) << "theirs";
      ::raise(SIGHUP);
      ::raise(SIGTERM);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 42);
    CHECK(contents(file) == "theirs");
  }

  TEST_CASE("an output interrupted while its temporary is written leaves nothing") {
    const auto dir = scratch("glsurf_signal_output");
    const int status = in_child([&] {
      write_file_atomically((dir / "out.txt").string(), false, [](std::ostream& out) {
        out << "part";
        out.flush();
        ::raise(SIGTERM);
      });
      ::_exit(7);
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(std::filesystem::is_empty(dir));
  }

}  // TEST_SUITE
