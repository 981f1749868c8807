// The host memory check's limits (surf/memory.hpp): memory cgroups v1 and v2
// from a file tree laid out as /sys/fs/cgroup is, the least headroom of a
// cgroup and its parents, "max" and v1's huge "unlimited" as no limit; and
// the address-space limit of a process (ulimit -v), in a child process.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "surf/memory.hpp"

using namespace glsurf;

namespace {

struct Tree {
  std::filesystem::path root;
  Tree() : root(std::filesystem::temp_directory_path() / ("glsurf_cgroup_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root);
  }
  ~Tree() { std::filesystem::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    const std::filesystem::path file = root / path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  }
};

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("cgroup v2: the least headroom of the process's cgroup and its parents; max is no limit") {
    Tree t;
    t.write("job/memory.max", "1000000000");
    t.write("job/memory.current", "400000000");
    t.write("job/step/memory.max", "max");
    t.write("job/step/memory.current", "300000000");
    CHECK(cgroup_headroom(t.root.string(), "0::/job/step\n") == 600000000.0);
    t.write("job/step/memory.max", "500000000");
    CHECK(cgroup_headroom(t.root.string(), "0::/job/step\n") == 200000000.0);
    // Usage beyond the limit leaves nothing, not a negative amount.
    t.write("job/step/memory.current", "700000000");
    CHECK(cgroup_headroom(t.root.string(), "0::/job/step\n") == 0.0);
    // Under unified/ beside v1's hierarchies (hybrid systems).
    Tree hybrid;
    hybrid.write("unified/job/memory.max", "2000000000");
    hybrid.write("unified/job/memory.current", "0");
    CHECK(cgroup_headroom(hybrid.root.string(), "1:cpu:/\n0::/job\n") == 2000000000.0);
  }

  TEST_CASE("cgroup v1: the memory controller's line, also among others; its huge default is no limit") {
    Tree t;
    t.write("memory/batch/memory.limit_in_bytes", "3000000000");
    t.write("memory/batch/memory.usage_in_bytes", "1000000000");
    t.write("memory/memory.limit_in_bytes", "9223372036854771712");
    t.write("memory/memory.usage_in_bytes", "5000000000");
    CHECK(cgroup_headroom(t.root.string(), "5:cpu,memory:/batch\n4:pids:/\n") == 2000000000.0);
    CHECK(cgroup_headroom(t.root.string(), "5:memory:/\n") == -1.0);
    // No memory line, no files: unknown.
    CHECK(cgroup_headroom(t.root.string(), "4:pids:/batch\n") == -1.0);
    CHECK(cgroup_headroom((t.root / "none").string(), "0::/x\n") == -1.0);
  }

  TEST_CASE("an address-space limit bounds the memory available to the process") {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // In the child: a limit 200 MB above what it uses now.
      const double before = available_host_memory();
      std::ifstream status("/proc/self/status");
      double vm_kib = 0;
      for (std::string key; status >> key;) {
        if (key == "VmSize:") {
          status >> vm_kib;
          break;
        }
      }
      struct rlimit limit {};
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(vm_kib * 1024 + 200e6);
      if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
      const double after = available_host_memory();
      ::_exit(after > 150e6 && after <= 200e6 && (before < 0 || after <= before) ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}
