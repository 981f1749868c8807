// glsurf bench detect — the detector's variants per frame, per-pass GPU
// times, and the CPU reference.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "app/bench_common.hpp"
#include "baseline/detector_variant.hpp"
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

// Per-pass GPU times of the default variant, in separate runs (the per-pass
// queries add overhead). A pass cannot take longer than the whole frame
// (`frame_ms`, its median): Mesa 22.3's llvmpipe sometimes answers a query
// begun right after a readback or upload with the time since boot; such
// passes show n/a.
void print_per_pass(GpuDetector& detector, const GrayImage& image, int runs, double frame_ms) {
  std::vector<std::vector<double>> per_pass, per_pass_wall;
  std::vector<std::string> names;
  std::vector<int> draws;
  detector.runner().set_profiling(true, /*finish_each_pass=*/true);
  for (int i = 0; i < runs; ++i) {
    detector.detect(image);
    const auto profile = detector.runner().take_profile();
    for (size_t k = 0; k < profile.size(); ++k) {
      if (i == 0) {
        names.push_back(profile[k].name);
        draws.push_back(profile[k].count);
        per_pass.emplace_back();
        per_pass_wall.emplace_back();
      }
      if (k < per_pass.size()) {
        per_pass[k].push_back(profile[k].milliseconds);
        per_pass_wall[k].push_back(profile[k].wall_milliseconds);
      }
    }
  }
  detector.runner().set_profiling(false);
  std::printf(
      "  per pass (default variant), medians: GPU = timer query, wall = glFinish to glFinish around\n"
      "  each draw (profiled frames run pass by pass)\n");
  std::printf("    %-24s %8s %8s\n", "pass", "GPU ms", "wall ms");
  for (size_t k = 0; k < names.size(); ++k) {
    std::vector<double> valid;
    for (double v : per_pass[k]) {
      if (v <= frame_ms) valid.push_back(v);
    }
    char gpu[16] = "n/a";
    if (valid.size() * 2 > per_pass[k].size()) std::snprintf(gpu, sizeof gpu, "%.2f", median(valid));
    std::printf("    %-24s %8s %8.2f  (%d draws)\n", names[k].c_str(), gpu, median(per_pass_wall[k]),
                draws[k]);
  }
}

// bench detect: the whole GPU detector per frame (wall clock, from upload to
// keypoints in memory) for each combination of Hessian and suppression
// method, run interleaved frame by frame so that a busy machine slows them
// alike; then the per-pass GPU times of the default combination, and the CPU
// reference.
int run_detect(Args& args) {
  const int runs = args.option_int("--runs");
  const int warmup = args.option_int("--warmup");
  const std::string image_path = args.option("--image");
  const auto sizes = parse_sizes(args.option("--sizes"));
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold");
  config.max_features = args.option_int("--max-features");
  config.first_step = args.option_int("--sample-step");
  const bool compare = !args.flag("--default-only");
  args.finish();
  for (const auto& [w, h] : sizes) {  // before any output
    const std::string why = image_size_problem(w, h, config);
    if (!why.empty()) throw UsageError("--sizes " + std::to_string(w) + "x" + std::to_string(h) + ": " + why);
  }

  // The default is the production detector; the others put baselines in
  // place of its Hessian and/or suppression step (baseline/detector_variant.hpp).
  using baseline::Hessian;
  using baseline::Suppression;
  struct Variant {
    const char* name;
    Hessian hessian;
    Suppression nms;
  };
  std::vector<Variant> variants = {
      {"multi-pass Hessian, early-Z NMS (default)", Hessian::MultiPass, Suppression::EarlyZ}};
  if (compare) {
    variants.push_back({"multi-pass Hessian, single-pass NMS", Hessian::MultiPass, Suppression::SinglePass});
    variants.push_back({"single-pass Hessian, early-Z NMS", Hessian::SinglePass, Suppression::EarlyZ});
    variants.push_back(
        {"single-pass Hessian, single-pass NMS", Hessian::SinglePass, Suppression::SinglePass});
  }

  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench detect — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path), software_note(software));
  std::printf(
      "  input: %s resampled; threshold %g, max_features %d, first sampling step %d; %d runs after %d\n"
      "  warm-up, variants interleaved frame by frame; wall = detect() from upload to keypoints in "
      "memory\n\n",
      image_path.c_str(), config.hessian_threshold, config.max_features, config.first_step, runs, warmup);
  std::vector<std::unique_ptr<GpuDetector>> detectors;
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  for (const Variant& v : variants) {
    std::unique_ptr<DetectorSteps> steps;  // nullptr: the production steps
    if (v.hessian != Hessian::MultiPass || v.nms != Suppression::EarlyZ)
      steps = std::make_unique<baseline::VariantSteps>(shaders, v.hessian, v.nms);
    detectors.push_back(std::make_unique<GpuDetector>(ctx, config, shaders, std::move(steps)));
  }
  for (const auto& [w, h] : sizes) {
    const GrayImage image = resize(photo, w, h);
    std::vector<std::vector<double>> wall(variants.size());
    std::vector<size_t> found(variants.size());
    for (int i = 0; i < warmup + runs; ++i) {
      for (size_t v = 0; v < variants.size(); ++v) {
        gl::finish();
        const Clock::time_point t0 = Clock::now();
        found[v] = detectors[v]->detect(image).size();
        if (i >= warmup) wall[v].push_back(ms_since(t0));
      }
    }
    std::vector<double> cpu_ms;
    size_t reference = 0;
    for (int i = 0; i < std::max(1, runs / 2); ++i) {
      const Clock::time_point t0 = Clock::now();
      reference = cpu::detect(image, config).size();
      cpu_ms.push_back(ms_since(t0));
    }
    std::printf("%dx%d: CPU reference %.1f ms (median), %zu keypoints\n", w, h, median(cpu_ms), reference);
    for (size_t v = 0; v < variants.size(); ++v) {
      std::printf("  %-42s %7.1f ms median, %7.1f min (%.1f fps), %zu keypoints\n", variants[v].name,
                  median(wall[v]), *std::min_element(wall[v].begin(), wall[v].end()),
                  1000.0 / median(wall[v]), found[v]);
    }

    print_per_pass(*detectors.front(), image, runs, median(wall.front()));
    std::fflush(stdout);
  }
  return 0;
}

OptionTable detect_options() {
  return {runs_option(9),
          warmup_option(),
          image_option(),
          text("--sizes", "WxH,...", "640x480,1280x720,1920x1080", "the frame sizes"),
          shared_option("--threshold"),
          shared_option("--max-features"),
          shared_option("--sample-step"),
          flag("--default-only", "the default variant only")};
}

}  // namespace

Command bench_detect_command() {
  return {"bench detect",
          "",
          "wall clock of the detector's variants (interleaved), per-pass GPU times, and the CPU reference",
          "The variants (multi-pass or single-pass Hessian, early-Z or single-pass suppression) run "
          "interleaved frame by frame, so that a busy machine slows them alike.",
          detect_options,
          run_detect,
          "bench detect --sizes 640x480 --runs 5",
          {}};
}

}  // namespace glsurf::app
