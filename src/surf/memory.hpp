// Host memory checks: an image that cannot fit is refused before the work
// starts, with a one-line reason, rather than the kernel killing the process
// part-way (or the machine swapping for minutes).
#pragma once

#include <string>

namespace glsurf {

// The memory the kernel says is available to new allocations without
// swapping (MemAvailable in /proc/meminfo), in bytes; -1 where it does not
// say (not Linux).
double available_host_memory();

// Why a width x height image that needs about `bytes_per_pixel` bytes a pixel
// and `fixed_bytes` more cannot fit in `available` bytes: "image of WxH needs
// about N GB of memory <where>; M GB is available", or "" when it fits or
// `available` is unknown (< 0).
std::string memory_problem(int width, int height, double bytes_per_pixel, double available,
                           const std::string& where, double fixed_bytes = 0);

}  // namespace glsurf
