// glsurf bench describe — GPU time of orientation and descriptors for N
// keypoints, and the whole detection + description at 640x480.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "app/bench_common.hpp"
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

// The description passes of detect_and_compute(image), in `runs` frames
// run pass by pass after `warmup` unprofiled ones: medians per pass, GPU
// (timer queries) and wall (glFinish to glFinish), summed.
struct DescribeProfile {
  size_t found = 0;
  double gpu_ms = 0, wall_ms = 0;
  std::string passes;  // " name gpu/wall" per pass
};

DescribeProfile profile_description(GpuDetector& detector, const GrayImage& image, int warmup, int runs) {
  DescribeProfile out;
  for (int i = 0; i < warmup; ++i) out.found = detector.detect_and_compute(image).keypoints.size();
  std::map<std::string, std::vector<double>> per_pass, per_pass_wall;
  detector.runner().set_profiling(true, /*finish_each_pass=*/true);
  for (int i = 0; i < runs; ++i) {
    out.found = detector.detect_and_compute(image).keypoints.size();
    for (const auto& p : detector.runner().take_profile()) {  // totals per pass name, all chunks
      if (p.name.rfind("orientation_", 0) != 0 && p.name.rfind("descriptor_", 0) != 0) continue;
      per_pass[p.name].push_back(p.milliseconds);
      per_pass_wall[p.name].push_back(p.wall_milliseconds);
    }
  }
  detector.runner().set_profiling(false);
  for (const char* name :
       {"orientation_quads", "orientation_samples", "orientation_windows", "orientation_best",
        "descriptor_sums", "descriptor_norms", "descriptor_normalize"}) {
    const auto it = per_pass.find(name);
    if (it == per_pass.end()) continue;
    const double ms = median(it->second), wall_ms = median(per_pass_wall[name]);
    out.gpu_ms += ms;
    out.wall_ms += wall_ms;
    char cell[80];
    std::snprintf(cell, sizeof cell, " %s %.2f/%.2f", name, ms, wall_ms);
    out.passes += cell;
  }
  return out;
}

// bench describe: GPU time of the orientation and descriptor passes for a
// given number of keypoints (the strongest N of a large image), and the wall
// clock of detection plus description per frame.
int run_describe(Args& args) {
  const int runs = args.option_int("--runs");
  const int warmup = args.option_int("--warmup");
  const std::string image_path = args.option("--image");
  const std::string counts_text = args.option("--counts");
  const bool extended = args.flag("--extended");
  const int first_step = args.option_int("--sample-step");
  const float second = args.option_float("--second-orientation");
  args.finish();
  const std::vector<int> counts = int_list("--counts", counts_text, 65536);
  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench describe — %s, %s%s\n", info.renderer.c_str(), info.version.c_str(),
              software_note(software));
  std::printf(
      "  %s descriptors, first sampling step %d; median of %d runs after %d warm-up; GPU = timer\n"
      "  queries, wall = glFinish to glFinish around each pass\n",
      extended ? "128-value" : "64-value", first_step, runs, warmup);
  if (second > 0) {
    std::printf(
        "  second orientations at %.7g: keypoints count entries (a point with two orientations is two)\n",
        second);
  }
  std::printf("\n");
  // Enough keypoints for the largest count: a 1920x1080 resampling, low threshold.
  const GrayImage large = resize(photo, 1920, 1080);
  for (const int n : counts) {
    DetectorConfig config;
    config.hessian_threshold = 1;
    config.max_features = n;
    config.extended = extended;
    config.first_step = first_step;
    config.second_orientation = second;
    GpuDetector detector(ctx, config);
    const DescribeProfile profile = profile_description(detector, large, warmup, runs);
    const std::string fewer = profile.found < static_cast<size_t>(n)
                                  ? " (of " + std::to_string(n) + " asked: the image has no more)"
                                  : "";
    std::printf(
        "%6zu keypoints%s: orientation + description %.2f ms GPU, %.2f ms wall (%.2f us per keypoint); "
        "per pass GPU/wall:%s\n",
        profile.found, fewer.c_str(), profile.gpu_ms, profile.wall_ms,
        1000.0 * profile.gpu_ms / std::max<size_t>(profile.found, 1), profile.passes.c_str());
  }
  // The whole job at 640x480.
  DetectorConfig config;
  config.extended = extended;
  config.first_step = first_step;
  config.second_orientation = second;
  GpuDetector detector(ctx, config);
  const GrayImage vga = resize(photo, 640, 480);
  std::vector<double> wall, keypoints_only;
  size_t found = 0;
  for (int i = 0; i < warmup + runs; ++i) {
    gl::finish();
    Clock::time_point t0 = Clock::now();
    found = detector.detect_and_compute(vga).keypoints.size();
    if (i >= warmup) wall.push_back(ms_since(t0));
    gl::finish();
    t0 = Clock::now();
    detector.detect(vga);
    if (i >= warmup) keypoints_only.push_back(ms_since(t0));
  }
  std::printf(
      "\n640x480: detection + description %.1f ms wall (median; %.1f min), detection alone %.1f ms, "
      "%zu keypoints\n",
      median(wall), *std::min_element(wall.begin(), wall.end()), median(keypoints_only), found);
  const DescribeProfile profile = profile_description(detector, vga, 0, runs);
  std::printf(
      "  its description, in frames run pass by pass: %.2f ms GPU, %.2f ms wall; per pass GPU/wall:%s\n",
      profile.gpu_ms, profile.wall_ms, profile.passes.c_str());
  return 0;
}

OptionTable describe_options() {
  return {runs_option(7),
          warmup_option(),
          image_option(),
          text("--counts", "N,...", "500,2000,8000",
               "the keypoint counts (the strongest N of a 1920x1080 frame)"),
          shared_option("--extended"),
          shared_option("--sample-step"),
          shared_option("--second-orientation")};
}

}  // namespace

Command bench_describe_command() {
  return {"bench describe",
          "",
          "GPU time of orientation and descriptors for N keypoints, and detection + description at 640x480",
          "",
          describe_options,
          run_describe,
          "bench describe --counts 1000 --extended",
          {}};
}

}  // namespace glsurf::app
