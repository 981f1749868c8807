// Host memory checks: an image that cannot fit is refused before the work
// starts, with a one-line reason, rather than the kernel killing the process
// part-way (or the machine swapping for minutes).
#pragma once

#include <string>

namespace glsurf {

// The memory this process can still allocate, in bytes: the least of what
// the kernel says is available without swapping (MemAvailable in
// /proc/meminfo), the headroom under its address-space and data limits
// (RLIMIT_AS, RLIMIT_DATA: `ulimit -v`, `ulimit -d`), and the headroom of its
// memory cgroup and the cgroups above it (v2 memory.max less memory.current;
// v1 memory.limit_in_bytes less memory.usage_in_bytes): the limits of
// containers and batch schedulers. -1 where none of them is known.
// GLSURF_CGROUP_ROOT, when set, stands for /sys/fs/cgroup (tests).
double available_host_memory();

// The least headroom of the memory cgroups that `self_cgroup` (the text of
// /proc/self/cgroup) names, under the cgroup file system at `root`; -1 when
// none has a limit.
double cgroup_headroom(const std::string& root, const std::string& self_cgroup);

// Why a width x height image that needs about `bytes_per_pixel` bytes a pixel
// and `fixed_bytes` more cannot fit in `available` bytes: "image of WxH needs
// about N GB of memory <where>; M GB is available", or "" when it fits or
// `available` is unknown (< 0).
std::string memory_problem(int width, int height, double bytes_per_pixel, double available,
                           const std::string& where, double fixed_bytes = 0);

}  // namespace glsurf
