#include "surf/memory.hpp"

#include <cstdio>
#include <fstream>

namespace glsurf {

double available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return -1;
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
