// glsurf bench integral — median times of the integral image on the GPU (both
// methods) and on the CPU reference, at the standard sizes, made from a real
// photograph resampled to each size.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "app/cli.hpp"
#include "cpu/detector.hpp"
#include "cpu/integral.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "gl/timer.hpp"
#include "io/image.hpp"
#include "surf/detector.hpp"
#include "surf/integral.hpp"

namespace glsurf::app {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<std::pair<int, int>> parse_sizes(const std::string& text) {
  std::vector<std::pair<int, int>> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int w = 0, h = 0;
    char x = 0;
    std::stringstream s(item);
    if (!(s >> w >> x >> h) || x != 'x' || w < 1 || h < 1 || !s.eof()) {
      throw UsageError("--sizes wants WxH[,WxH...], got '" + item + "'");
    }
    sizes.emplace_back(w, h);
  }
  return sizes;
}

struct GpuResult {
  double gpu_ms = 0, wall_ms = 0;
  int passes = 0;
  bool exact = false;
  std::vector<gl::PassRunner::PassTime> per_pass;  // mean per run, with --profile
};

GpuResult time_gpu(IntegralStage& stage, gl::PassRunner& runner, const gl::Texture& image,
                   const cpu::IntegralImage& reference, int warmup, int runs, bool profile) {
  stage.configure(image.width(), image.height());
  GpuResult r;
  r.passes = stage.passes_per_run();
  gl::GpuTimer timer;
  std::vector<double> gpu, wall;
  for (int i = 0; i < warmup + runs; ++i) {
    glFinish();
    const Clock::time_point t0 = Clock::now();
    timer.begin();
    stage.run(runner, image);
    timer.end();
    glFinish();
    const double w = ms_since(t0);
    const double g = timer.milliseconds();
    if (i >= warmup) {
      gpu.push_back(g);
      wall.push_back(w);
    }
  }
  r.gpu_ms = median(gpu);
  r.wall_ms = median(wall);
  r.exact = stage.result().download_u32() == reference.sums;
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

int bench_integral(Args& args) {
  const int runs = args.option_int("--runs", 7, 1, 1000);
  const int warmup = args.option_int("--warmup", 2, 0, 1000);
  const bool profile = args.flag("--profile");
  const int top_pixels = args.option_int("--top-pixels", IntegralConfig{}.top_pixels, 0, 1 << 30);
  const std::string image_path = args.option("--image", GLSURF_ASSET_DIR "/graf1.png");
  const auto sizes = parse_sizes(args.option("--sizes", "320x240,640x480,1280x720,1920x1080,4096x4096"));
  args.finish();

  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  for (const auto& [w, h] : sizes) {  // before any allocation
    if (w + 1 > info.max_texture_size || h + 1 > info.max_texture_size) {
      throw UsageError("--sizes " + std::to_string(w) + "x" + std::to_string(h) +
                       ": the integral image needs (W+1)x(H+1) texels, at most " +
                       std::to_string(info.max_texture_size) + " per side here");
    }
  }
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  gl::PassRunner runner;
  IntegralStage two_d(shaders, {IntegralMethod::Blelloch2D, top_pixels});
  IntegralStage one_d(shaders, {IntegralMethod::Blelloch1D, top_pixels});

  const bool software = info.renderer.find("llvmpipe") != std::string::npos ||
                        info.renderer.find("softpipe") != std::string::npos;
  std::printf("glsurf bench integral — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
  std::printf("  input: %s resampled to each size; median of %d runs after %d warm-up; T0 = %d\n",
              image_path.c_str(), runs, warmup, top_pixels);
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

    std::vector<double> cpu_ms;
    cpu::IntegralImage reference;
    for (int i = 0; i < warmup + runs; ++i) {
      const Clock::time_point t0 = Clock::now();
      reference = cpu::integral_image(image);
      if (i >= warmup) cpu_ms.push_back(ms_since(t0));
    }
    const GpuResult a = time_gpu(two_d, runner, texture, reference, warmup, runs, profile);
    const GpuResult b = time_gpu(one_d, runner, texture, reference, warmup, runs, profile);
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

// bench detect: the whole GPU detector per frame (wall clock, from upload to
// keypoints in memory), its passes' GPU times, and the CPU reference.
int bench_detect(Args& args) {
  const int runs = args.option_int("--runs", 7, 1, 1000);
  const int warmup = args.option_int("--warmup", 2, 0, 1000);
  const std::string image_path = args.option("--image", GLSURF_ASSET_DIR "/graf1.png");
  const auto sizes = parse_sizes(args.option("--sizes", "640x480,1280x720,1920x1080"));
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold", config.hessian_threshold, 0.0f, 1e12f);
  config.max_features = args.option_int("--max-features", 0, 0, 1 << 24);
  const std::string hessian_name = args.option("--hessian", "both");
  const std::string nms_name = args.option("--nms", "early-z");
  if (nms_name != "early-z" && nms_name != "single") throw UsageError("--nms must be early-z or single");
  const Suppression suppression = nms_name == "single" ? Suppression::SinglePass : Suppression::EarlyZ;
  if (hessian_name != "multi" && hessian_name != "single" && hessian_name != "both") {
    throw UsageError("--hessian must be multi, single or both");
  }
  args.finish();
  std::vector<HessianMethod> methods;
  if (hessian_name != "single") methods.push_back(HessianMethod::MultiPass);
  if (hessian_name != "multi") methods.push_back(HessianMethod::SinglePass);

  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.renderer.find("llvmpipe") != std::string::npos;
  std::printf("glsurf bench detect — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
  std::printf(
      "  input: %s resampled; threshold %g, max_features %d; %s NMS; median of %d runs after %d warm-up\n",
      image_path.c_str(), config.hessian_threshold, config.max_features, nms_name.c_str(), runs, warmup);
  std::printf(
      "  wall = detect() from upload to keypoints in memory; GPU = sum of the passes' GL_TIME_ELAPSED\n\n");
  for (const auto& [w, h] : sizes) {
    const GrayImage image = resize(photo, w, h);
    for (const HessianMethod method : methods) {
      Detector detector(ctx, config, gl::ShaderSource::from_environment(), method, suppression);
      std::vector<double> wall, cpu_ms;
      std::vector<KeyPoint> keypoints;
      for (int i = 0; i < warmup + runs; ++i) {
        const Clock::time_point t0 = Clock::now();
        keypoints = detector.detect(image);
        if (i >= warmup) wall.push_back(ms_since(t0));
      }
      // Per-pass GPU times in separate runs (the per-pass queries add overhead).
      std::vector<std::vector<double>> per_pass;
      std::vector<std::string> names;
      std::vector<int> draws;
      detector.runner().set_profiling(true);
      for (int i = 0; i < runs; ++i) {
        detector.detect(image);
        const auto profile = detector.runner().take_profile();
        for (size_t k = 0; k < profile.size(); ++k) {
          if (i == 0) {
            names.push_back(profile[k].name);
            draws.push_back(profile[k].count);
            per_pass.emplace_back();
          }
          if (k < per_pass.size()) per_pass[k].push_back(profile[k].milliseconds);
        }
      }
      detector.runner().set_profiling(false);
      std::vector<KeyPoint> reference;
      for (int i = 0; i < std::max(1, runs / 2); ++i) {
        const Clock::time_point t0 = Clock::now();
        reference = cpu::detect(image, config);
        cpu_ms.push_back(ms_since(t0));
      }
      // A pass cannot take longer than the whole frame: Mesa 22.3's llvmpipe
      // sometimes answers a query begun right after a readback or upload with
      // the time since boot. Such values are shown as n/a, not summed.
      double gpu_total = 0;
      int invalid = 0;
      std::vector<std::string> cells;
      for (size_t k = 0; k < names.size(); ++k) {
        std::vector<double> valid;
        for (double v : per_pass[k]) {
          if (v <= median(wall)) valid.push_back(v);
        }
        char cell[32];
        if (valid.size() * 2 > per_pass[k].size()) {
          gpu_total += median(valid);
          std::snprintf(cell, sizeof cell, "%8.2f ms", median(valid));
        } else {
          ++invalid;
          std::snprintf(cell, sizeof cell, "%8s   ", "n/a");
        }
        cells.push_back(cell);
      }
      std::printf(
          "%dx%d, %s Hessian: GPU detector %.1f ms wall (%.1f fps), passes %.1f ms GPU%s, %zu keypoints | "
          "CPU reference %.1f ms, %zu keypoints\n",
          w, h, method == HessianMethod::MultiPass ? "multi-pass" : "single-pass", median(wall),
          1000.0 / median(wall), gpu_total, invalid ? " (without the n/a passes)" : "", keypoints.size(),
          median(cpu_ms), reference.size());
      for (size_t k = 0; k < names.size(); ++k) {
        std::printf("    %-24s %s  (%d draws)\n", names[k].c_str(), cells[k].c_str(), draws[k]);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int bench(Args args) {
  const std::string what = args.next_word();
  if (what == "integral") return bench_integral(args);
  if (what == "detect") return bench_detect(args);
  throw UsageError("bench needs a stage to time: integral or detect");
}

}  // namespace glsurf::app
