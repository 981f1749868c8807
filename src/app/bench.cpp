// glsurf bench integral — median times of the integral image on the GPU (both
// methods) and on the CPU reference, at the standard sizes, made from a real
// photograph resampled to each size.
#include "app/cli.hpp"
#include "cpu/integral.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "gl/timer.hpp"
#include "io/image.hpp"
#include "surf/integral.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

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
  const auto sizes = parse_sizes(
      args.option("--sizes", "320x240,640x480,1280x720,1920x1080,4096x4096"));
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
  std::printf("%-11s | %-34s | %-34s | %s\n", "", "2-D (Terriberry)", "1-D (rows, columns)",
              "CPU reference");
  std::printf("%-11s | %8s %8s %6s %8s | %8s %8s %6s %8s | %8s\n", "size", "GPU ms", "wall ms",
              "passes", "exact", "GPU ms", "wall ms", "passes", "exact", "ms");
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
      if (info.timer_query) std::snprintf(text, sizeof text, "%8.2f", ms);
      else std::snprintf(text, sizeof text, "%8s", "n/a");
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

}  // namespace

int bench(Args args) {
  const std::string what = args.next_word();
  if (what != "integral") {
    throw UsageError("bench needs one stage to time; available: integral");
  }
  return bench_integral(args);
}

}  // namespace glsurf::app
