// glsurf bench integral — median times of the integral image on the GPU (both
// methods) and on the CPU reference, at the standard sizes, made from a real
// photograph resampled to each size.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "app/bench_common.hpp"
#include "baseline/integral_2d.hpp"
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

// One GPU method's times: medians of the whole stage, GPU (a timer query)
// and wall (glFinish to glFinish), and whether it equals the CPU's.
struct GpuResult {
  double gpu_ms = 0, wall_ms = 0;
  int passes = 0;
  bool exact = false;
  std::vector<gl::PassRunner::PassTime> per_pass;  // mean per run, with --profile
};

// Stage: IntegralStage (production, 1-D) or baseline::Integral2DStage.
template <class Stage>
GpuResult time_gpu(Stage& stage, gl::PassRunner& runner, const gl::Texture& image,
                   const cpu::IntegralImage& reference, int warmup, int runs, bool profile) {
  stage.configure(reference.width, reference.height);
  GpuResult r;
  r.passes = stage.passes_per_run();
  gl::GpuTimer timer;
  std::vector<double> gpu, wall;
  for (int i = 0; i < warmup + runs; ++i) {
    gl::finish();
    const Clock::time_point t0 = Clock::now();
    timer.begin();
    stage.run(runner, image);
    timer.end();
    gl::finish();
    const double w = ms_since(t0);
    const double g = timer.milliseconds();
    if (i >= warmup) {
      gpu.push_back(g);
      wall.push_back(w);
    }
  }
  r.gpu_ms = median(gpu);
  r.wall_ms = median(wall);
  r.exact = stage.download_sums() == reference.sums;
  if (profile) {
    // Separate runs: per-pass queries cannot nest inside the whole-run timer.
    runner.set_profiling(true);
    for (int i = 0; i < runs; ++i) stage.run(runner, image);
    r.per_pass = runner.take_profile();
    runner.set_profiling(false);
    for (auto& p : r.per_pass) p.milliseconds /= runs;
  }
  return r;
}

// bench integral: both GPU methods (the production 1-D, the 2-D baseline)
// and the CPU reference at each size.
int run_integral(Args& args) {
  const int runs = args.option_int("--runs");
  const int warmup = args.option_int("--warmup");
  const bool profile = args.flag("--profile");
  const int top_pixels = args.option_int("--top-pixels");
  const int radix = args.option_int("--scan-radix");
  const std::string image_path = args.option("--image");
  const auto sizes = parse_sizes(args.option("--sizes"));
  args.finish();

  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  for (const auto& [w, h] : sizes) {                                       // before any allocation
    if (w > info.max_texture_size - 2 || h > info.max_texture_size - 2) {  // surf/integral.cpp's limit
      throw UsageError("--sizes " + std::to_string(w) + "x" + std::to_string(h) +
                       ": the integral image needs (W+2)x(H+2) texels with a border, at most " +
                       std::to_string(info.max_texture_size) + " per side here");
    }
  }
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  gl::PassRunner runner;
  baseline::Integral2DStage two_d(shaders, {top_pixels, radix});
  IntegralStage one_d(shaders, {radix});

  const bool software = info.software();
  std::printf("glsurf bench integral — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path), software_note(software));
  std::printf(
      "  input: %s resampled to each size; median of %d runs after %d warm-up; T0 = %d, scan radix %d\n",
      image_path.c_str(), runs, warmup, top_pixels, radix);
  std::printf("  GPU = GL_TIME_ELAPSED query%s; wall = glFinish to glFinish; exact = equals the CPU\n\n",
              info.timer_query ? "" : " (not available on this driver: n/a)");
  std::printf("%-11s | %-34s | %-34s | %s\n", "", "2-D (Terriberry)", "1-D (rows, columns)", "CPU reference");
  std::printf("%-11s | %8s %8s %6s %8s | %8s %8s %6s %8s | %8s\n", "size", "GPU ms", "wall ms", "passes",
              "exact", "GPU ms", "wall ms", "passes", "exact", "ms");
  bool all_exact = true;
  for (const auto& [w, h] : sizes) {
    const GrayImage image = resize(photo, w, h);
    gl::Texture texture(w, h, gl::Format::R8, "image");
    texture.upload(image.pixels.data());
    // The 1-D method as the detector runs it, on the image packed four pixels to a texel.
    gl::Texture packed(packed_image_width(w), h, gl::Format::RGBA8, "image_packed");
    std::vector<std::uint8_t> scratch;
    upload_packed_image(packed, image, scratch);

    std::vector<double> cpu_ms;
    cpu::IntegralImage reference;
    for (int i = 0; i < warmup + runs; ++i) {
      const Clock::time_point t0 = Clock::now();
      reference = cpu::integral_image(image);
      if (i >= warmup) cpu_ms.push_back(ms_since(t0));
    }
    const GpuResult a = time_gpu(two_d, runner, texture, reference, warmup, runs, profile);
    const GpuResult b = time_gpu(one_d, runner, packed, reference, warmup, runs, profile);
    all_exact = all_exact && a.exact && b.exact;
    char label[32];
    std::snprintf(label, sizeof label, "%dx%d", w, h);
    auto gpu_ms = [&](double ms) {
      char text[16];
      if (info.timer_query)
        std::snprintf(text, sizeof text, "%8.2f", ms);
      else
        std::snprintf(text, sizeof text, "%8s", "n/a");
      return std::string(text);
    };
    std::printf("%-11s | %s %8.2f %6d %8s | %s %8.2f %6d %8s | %8.2f\n", label, gpu_ms(a.gpu_ms).c_str(),
                a.wall_ms, a.passes, a.exact ? "yes" : "NO", gpu_ms(b.gpu_ms).c_str(), b.wall_ms, b.passes,
                b.exact ? "yes" : "NO", median(cpu_ms));
    for (const GpuResult* g : {&a, &b}) {
      for (const auto& p : g->per_pass) {
        std::printf("            %s %-24s %8.2f ms mean per run (%d draws)\n", g == &a ? "2-D" : "1-D",
                    p.name.c_str(), p.milliseconds, p.count / runs);
      }
    }
    std::fflush(stdout);
  }
  if (!all_exact) {
    std::fprintf(stderr, "glsurf: error: a GPU integral image differs from the CPU reference\n");
    return 1;
  }
  return 0;
}

OptionTable integral_options() {
  return {runs_option(7),
          warmup_option(),
          image_option(),
          text("--sizes", "WxH,...", "320x240,640x480,1280x720,1920x1080,4096x4096", "the frame sizes"),
          integer("--top-pixels", "T0", baseline::Integral2DConfig{}.top_pixels, 0, 1 << 30,
                  "the 2-D method's top level: at most T0 pixels"),
          integer("--scan-radix", "R", IntegralConfig{}.scan_radix, 2, 64, "radix of the 1-D scans"),
          flag("--profile", "GPU time per pass too")};
}

}  // namespace

Command bench_integral_command() {
  return {"bench integral",
          "",
          "median GPU and CPU times of the integral image",
          "Both GPU methods (2-D, Terriberry; 1-D, rows then columns) against the CPU reference, which they "
          "must equal exactly.",
          integral_options,
          run_integral,
          "bench integral --sizes 640x480 --profile",
          {}};
}

}  // namespace glsurf::app
