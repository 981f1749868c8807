// glsurf bench — everything: the whole job per frame at the standard sizes,
// GPU and CPU side by side with GPU milliseconds per stage, then the matcher;
// and the benchmarks of single stages (bench_*.cpp).
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "app/bench_common.hpp"
#include "app/json.hpp"
#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "cpu/integral.hpp"
#include "cpu/matcher.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/timer.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"
#include "surf/integral.hpp"

namespace glsurf::app {

namespace {

// The stages as the timer keys start and as the table names them.
constexpr int kStageCount = 7;
const char* const kStages[kStageCount][2] = {{"integral_", "integral"},    {"hessian_", "hessian"},
                                             {"extrema_", "extrema"},      {"select_", "select"},
                                             {"compact_", "compact"},      {"orientation_", "orientation"},
                                             {"descriptor_", "descriptor"}};

// One frame size: the whole job on the GPU (wall clock), its stages, and the
// CPU reference; a row of the table on `listing`, and the JSON record
// returned (`first`: no comma before it).
std::string time_frame(FILE* listing, const gl::Context& ctx, const DetectorConfig& config,
                       const GrayImage& image, int runs, bool first) {
  const bool software = ctx.info().software();
  const int w = image.width, h = image.height;
  GpuDetector detector(ctx, config);
  size_t found = detector.detect_and_compute(image).keypoints.size();
  std::vector<double> wall;
  std::vector<std::vector<double>> stage_ms(kStageCount);
  std::vector<bool> bogus(kStageCount, false),
      ran(kStageCount, false);  // ran: the stage drew (select only with max_features)
  for (int i = 0; i < runs; ++i) {
    gl::finish();
    const Clock::time_point t0 = Clock::now();
    found = detector.detect_and_compute(image).keypoints.size();
    wall.push_back(ms_since(t0));
  }
  detector.runner().set_profiling(true, /*finish_each_pass=*/software);
  for (int i = 0; i < runs; ++i) {
    detector.detect_and_compute(image);
    double sums[kStageCount] = {};
    for (const auto& p : detector.runner().take_profile()) {
      const double ms = software ? p.wall_milliseconds : p.milliseconds;
      for (int k = 0; k < kStageCount; ++k) {
        if (p.name.rfind(kStages[k][0], 0) != 0) continue;
        sums[k] += ms;
        ran[static_cast<size_t>(k)] = true;
        if (!software && ms > median(wall)) bogus[static_cast<size_t>(k)] = true;  // a timer artefact
      }
    }
    for (int k = 0; k < kStageCount; ++k) stage_ms[static_cast<size_t>(k)].push_back(sums[k]);
  }
  detector.runner().set_profiling(false);
  std::vector<double> cpu_ms;
  for (int i = 0; i < std::max(1, runs / 2); ++i) {
    const Clock::time_point t0 = Clock::now();
    cpu::detect_and_compute(image, config);
    cpu_ms.push_back(ms_since(t0));
  }
  char label[32];
  std::snprintf(label, sizeof label, "%dx%d", w, h);
  std::fprintf(listing, "%-10s %9.1f %7.1f %9zu |", label, median(wall), 1000.0 / median(wall), found);
  char head[512];
  std::snprintf(head, sizeof head,
                "%s    {\"size\": \"%s\", \"gpu_ms\": %.2f, \"fps\": %.2f, \"keypoints\": %zu, "
                "\"cpu_ms\": %.2f, \"stages_clock\": \"%s\", \"stages_ms\": {",
                first ? "" : ",\n", label, median(wall), 1000.0 / median(wall), found, median(cpu_ms),
                software ? "wall between glFinish calls" : "GPU timer queries");
  std::string record = head;
  for (int k = 0; k < kStageCount; ++k) {
    const bool ok = ran[static_cast<size_t>(k)] && !bogus[static_cast<size_t>(k)];
    if (ok)
      std::fprintf(listing, " %11.1f", median(stage_ms[static_cast<size_t>(k)]));
    else
      std::fprintf(listing, " %11s", ran[static_cast<size_t>(k)] ? "n/a" : "-");
    char value[32];
    if (ok)
      std::snprintf(value, sizeof value, "%.2f", median(stage_ms[static_cast<size_t>(k)]));
    else
      std::snprintf(value, sizeof value, "null");
    record += std::string(k ? ", " : "") + "\"" + kStages[k][1] + "\": " + value;
  }
  record += "}}";
  std::fprintf(listing, " | %9.1f\n", median(cpu_ms));
  std::fflush(listing);
  return record;
}

// The matcher: m x m two nearest neighbours, fused GPU vs CPU; rows on
// `listing`, the JSON records returned.
std::string time_matcher(FILE* listing, const gl::Context& ctx, int runs) {
  std::fprintf(listing, "\n%6s | %14s | %10s\n", "m", "fused GPU ms", "CPU ms");
  std::string match_records;
  for (const int m : {512, 1024, 2048, 4096, 8192}) {
    const Features q = random_descriptors(m, 1), t = random_descriptors(m, 2);
    MatchConfig config;
    config.laplacian = false;
    GpuMatcher matcher(ctx, config);
    std::vector<double> gpu;
    for (int i = 0; i < std::max(2, runs / 2) + 1; ++i) {
      gl::finish();
      const Clock::time_point t0 = Clock::now();
      matcher.two_nearest(q, t);
      if (i > 0) gpu.push_back(ms_since(t0));
    }
    double cpu_ms = -1;
    if (m <= 2048) {
      const Clock::time_point t0 = Clock::now();
      cpu::two_nearest(q, t, false);
      cpu_ms = ms_since(t0);
    }
    char cpu_cell[32], cpu_json[32] = "null";  // one CPU run, up to m = 2048
    if (cpu_ms >= 0)
      std::snprintf(cpu_cell, sizeof cpu_cell, "%10.1f", cpu_ms);
    else
      std::snprintf(cpu_cell, sizeof cpu_cell, "%10s", "-");
    if (cpu_ms >= 0) std::snprintf(cpu_json, sizeof cpu_json, "%.2f", cpu_ms);
    std::fprintf(listing, "%6d | %14.1f | %s\n", m, median(gpu), cpu_cell);
    char record[256];
    std::snprintf(record, sizeof record, "%s    {\"m\": %d, \"fused_gpu_ms\": %.2f, \"cpu_ms\": %s}",
                  match_records.empty() ? "" : ",\n", m, median(gpu), cpu_json);
    match_records += record;
    std::fflush(listing);
  }
  return match_records;
}

// bench (everything): the whole job per frame at the standard sizes, GPU and
// CPU side by side, with GPU milliseconds per stage; then the matcher.
int run_all(Args& args) {
  const int runs = args.option_int("--runs");
  const std::string json = args.option("--json");
  const std::string image_path = args.option("--image");
  DetectorConfig config;
  config.first_step = args.option_int("--sample-step");
  args.finish();
  // With the JSON on standard output, the table goes to standard error.
  FILE* const listing = standard_stream_of(json) == 1 ? stderr : stdout;
  if (!json.empty()) {
    check_not_an_input("--json", json, {image_path});
    check_writable(json);  // before minutes of work, not after them
  }
  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::fprintf(listing, "glsurf bench — %s, %s, %s%s\n", info.vendor.c_str(), info.renderer.c_str(),
               info.version.c_str(), software_note(software));
  // llvmpipe's timer queries read far too little for some passes (those
  // drawn into the candidate atlas), so there the stages are timed by the wall
  // clock between glFinish calls around each pass; a real GPU's timers are
  // right and the finishes would add their own overhead.
  std::fprintf(
      listing,
      "  detection + orientation + 64-value descriptors per frame, %s resampled, threshold %g,\n"
      "  first sampling step %d; median of %d runs after 1 warm-up; ms per stage (separate runs, pass by\n"
      "  pass): %s\n\n",
      image_path.c_str(), config.hessian_threshold, config.first_step, runs,
      software
          ? "wall clock between glFinish calls around each pass (llvmpipe's timer queries under-read some)"
          : "GPU timer queries (n/a: longer than the frame)");
  std::string records;
  std::fprintf(listing, "%-10s %9s %7s %9s |", "size", "GPU ms", "fps", "keypoints");
  for (const auto& stage : kStages) std::fprintf(listing, " %11s", stage[1]);
  std::fprintf(listing, " | %9s\n", "CPU ms");
  for (const auto& [w, h] :
       std::vector<std::pair<int, int>>{{320, 240}, {640, 480}, {1280, 720}, {1920, 1080}}) {
    records += time_frame(listing, ctx, config, resize(photo, w, h), runs, records.empty());
  }
  const std::string match_records = time_matcher(listing, ctx, runs);
  if (!json.empty()) {
    write_file_atomically(json, false, [&](std::ostream& out) {
      out << "{\n  \"renderer\": \"" << json_escaped(info.renderer) << "\",\n  \"version\": \""
          << json_escaped(info.version) << "\",\n  \"software\": " << (software ? "true" : "false")
          << ",\n  \"detector\": " << detector_json(config) << ",\n  \"frames\": [\n"
          << records << "\n  ],\n  \"matching\": [\n"
          << match_records << "\n  ]\n}\n";
    });
  }
  return 0;
}

OptionTable all_options() {
  return {runs_option(5),
          text("--json", "OUT", "",
               "the results as JSON (-: on standard output, the table then on standard error)", "none"),
          image_option(), shared_option("--sample-step")};
}

}  // namespace

Command bench_command() {
  return {
      "bench",
      "[NAME]",
      "times of every stage, GPU and CPU reference, at 320x240 .. 1920x1080",
      "Without NAME, everything: per frame GPU (with ms per stage) and CPU side by side, then the matcher "
      "for m = 512 .. 8192. With NAME, one benchmark (below).",
      all_options,
      run_all,
      "bench --runs 3 --json bench.json",
      {bench_integral_command(), bench_detect_command(), bench_describe_command(), bench_match_command(),
       bench_throughput_command(), bench_size_command(), bench_sift_command()}};
}

}  // namespace glsurf::app
