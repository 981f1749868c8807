#include "surf/memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace glsurf {

namespace {

// A number of bytes from a file that holds one (a cgroup's limit or usage);
// -1 when it is missing or says "max".
double read_bytes(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end && *end == 0 ? value : -1;
}

// The smaller of two amounts where either may be unknown (< 0).
double smaller(double a, double b) { return a < 0 ? b : b < 0 ? a : std::min(a, b); }

// The least headroom (limit - usage) of the cgroup directory `dir` and of
// those above it up to `top`: a limit set on a parent binds its children.
// Page cache the kernel reclaims before it fails an allocation, counted in a
// cgroup's usage: "inactive_file" (v2) or "total_inactive_file" (v1) of its
// memory.stat; 0 where it does not say.
double inactive_file(const std::string& dir) {
  std::ifstream stat(dir + "/memory.stat");
  std::string key;
  double value = 0;
  while (stat >> key >> value) {
    if (key == "inactive_file" || key == "total_inactive_file") return value;
  }
  return 0;
}

double headroom_up(std::string dir, const std::string& top, const char* limit_file, const char* usage_file) {
  // cgroup v1 reports "no limit" as a huge number (2^63 rounded to pages).
  constexpr double kUnlimited = 1e18;
  double least = -1;
  for (;;) {
    const double limit = read_bytes(dir + "/" + limit_file), usage = read_bytes(dir + "/" + usage_file);
    if (limit >= 0 && limit < kUnlimited) {
      const double used = std::max(0.0, usage - inactive_file(dir));
      least = smaller(least, std::max(0.0, limit - used));
    }
    const size_t cut = dir.rfind('/');
    if (dir.size() <= top.size() || cut == std::string::npos || cut < top.size()) break;
    dir = dir.substr(0, cut);
  }
  return least;
}

// Headroom under a resource limit on this process's address space or data:
// the limit less what /proc/self/status says is in use.
double rlimit_headroom(int resource, const char* status_key) {
  struct rlimit limit {};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  std::ifstream status("/proc/self/status");
  std::string key;
  double kib = 0, used = 0;
  for (std::string line; std::getline(status, line);) {
    std::istringstream fields(line);
    if (fields >> key >> kib && key == status_key) used = kib * 1024.0;
  }
  return std::max(0.0, static_cast<double>(limit.rlim_cur) - used);
}

}  // namespace

double cgroup_headroom(const std::string& root, const std::string& self_cgroup) {
  double least = -1;
  std::istringstream lines(self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "ID:CONTROLLERS:PATH": v2 is "0::/path", v1's memory line names it.
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (path == "/") path.clear();
    if (controllers.empty()) {
      // The unified hierarchy at the root, or under unified/ beside v1's.
      for (const std::string& top : {root, root + "/unified"}) {
        least = smaller(least, headroom_up(top + path, top, "memory.max", "memory.current"));
      }
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      const std::string top = root + "/memory";
      least = smaller(least, headroom_up(top + path, top, "memory.limit_in_bytes", "memory.usage_in_bytes"));
    }
  }
  return least;
}

double available_host_memory() {
  double available = -1;
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") {
      available = kib * 1024.0;
      break;
    }
  }
  available = smaller(available, rlimit_headroom(RLIMIT_AS, "VmSize:"));
  available = smaller(available, rlimit_headroom(RLIMIT_DATA, "VmData:"));
  const char* root = std::getenv("GLSURF_CGROUP_ROOT");
  std::ifstream self("/proc/self/cgroup");
  std::stringstream text;
  text << self.rdbuf();
  return smaller(available, cgroup_headroom(root && *root ? root : "/sys/fs/cgroup", text.str()));
}

std::string memory_problem(int width, int height, double bytes_per_pixel, double available,
                           const std::string& where, double fixed_bytes) {
  const double needed = bytes_per_pixel * width * height + fixed_bytes;
  if (available < 0 || needed <= available) return "";
  char figures[120];
  std::snprintf(figures, sizeof figures, "needs about %.1f GB of memory ", needed / 1e9);
  char left[80];
  std::snprintf(left, sizeof left, "; %.1f GB is available", available / 1e9);
  return "image of " + std::to_string(width) + "x" + std::to_string(height) + " " + figures + where + left;
}

}  // namespace glsurf
