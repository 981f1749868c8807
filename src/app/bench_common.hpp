// Pieces the benchmarks share (glsurf bench and its parts).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "match/types.hpp"

namespace glsurf::app {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v);
double ms_since(Clock::time_point t0);
// --sizes WxH,WxH,...
std::vector<std::pair<int, int>> parse_sizes(const std::string& text);
// "a,b,c" as integers in [1, max_value]; `name` for the error.
std::vector<int> int_list(const std::string& name, const std::string& text, int max_value);
// n random unit 64-value descriptors (fixed seed): matcher benchmark input.
Features random_descriptors(int n, unsigned seed);
// The first line's note where the "GPU" is llvmpipe: the times are the CPU's.
inline const char* software_note(bool software) {
  return software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "";
}
// --runs N, --warmup N, --image PATH as the benchmarks' tables have them.
Option runs_option(int fallback);
Option warmup_option();
Option image_option();

// The benchmarks, one per file.
Command bench_integral_command();
Command bench_detect_command();
Command bench_describe_command();
Command bench_match_command();
Command bench_throughput_command();
Command bench_size_command();
Command bench_sift_command();

}  // namespace glsurf::app
