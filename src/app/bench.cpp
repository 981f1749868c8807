// glsurf bench integral — median times of the integral image on the GPU (both
// methods) and on the CPU reference, at the standard sizes, made from a real
// photograph resampled to each size.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "app/cli.hpp"
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
  if (!text.empty() && text.back() == ',') throw UsageError("--sizes wants WxH[,WxH...], got '" + text + "'");
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

// "a,b,c" as integers in [1, max_value]; `name` for the error.
std::vector<int> int_list(const std::string& name, const std::string& text, int max_value) {
  std::vector<int> values;
  if (!text.empty() && text.back() == ',') {
    throw UsageError(name + " wants integers from 1 to " + std::to_string(max_value) + ", got '" + text +
                     "'");
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 1 || v > max_value) {
      throw UsageError(name + " wants integers from 1 to " + std::to_string(max_value) + ", got '" + item +
                       "'");
    }
    values.push_back(v);
  }
  return values;
}

// n random unit 64-value descriptors (fixed seed): matcher benchmark input.
Features random_descriptors(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss;
  Features f;
  f.descriptor_size = 64;
  f.keypoints.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    float d[64];
    double norm = 0;
    for (float& v : d) v = gauss(rng), norm += v * v;
    for (float v : d) f.descriptors.push_back(static_cast<float>(v / std::sqrt(norm)));
  }
  return f;
}

struct GpuResult {
  double gpu_ms = 0, wall_ms = 0;
  int passes = 0;
  bool exact = false;
  std::vector<gl::PassRunner::PassTime> per_pass;  // mean per run, with --profile
};

GpuResult time_gpu(IntegralStage& stage, gl::PassRunner& runner, const gl::Texture& image,
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

int bench_integral(Args& args) {
  const int runs = args.option_int("--runs", 7, 1, 1000);
  const int warmup = args.option_int("--warmup", 2, 0, 1000);
  const bool profile = args.flag("--profile");
  const int top_pixels = args.option_int("--top-pixels", IntegralConfig{}.top_pixels, 0, 1 << 30);
  const int radix = args.option_int("--scan-radix", IntegralConfig{}.scan_radix, 2, 64);
  const std::string image_path = args.option("--image", asset_dir() + "/graf1.png");
  const auto sizes = parse_sizes(args.option("--sizes", "320x240,640x480,1280x720,1920x1080,4096x4096"));
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
  IntegralStage two_d(shaders, {IntegralMethod::Blelloch2D, top_pixels, radix});
  IntegralStage one_d(shaders, {IntegralMethod::Blelloch1D, top_pixels, radix});

  const bool software = info.software();
  std::printf("glsurf bench integral — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
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

// bench detect: the whole GPU detector per frame (wall clock, from upload to
// keypoints in memory) for each combination of Hessian and suppression
// method, run interleaved frame by frame so that a busy machine slows them
// alike; then the per-pass GPU times of the default combination, and the CPU
// reference.
int bench_detect(Args& args) {
  const int runs = args.option_int("--runs", 9, 1, 1000);
  const int warmup = args.option_int("--warmup", 2, 0, 1000);
  const std::string image_path = args.option("--image", asset_dir() + "/graf1.png");
  const auto sizes = parse_sizes(args.option("--sizes", "640x480,1280x720,1920x1080"));
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold", config.hessian_threshold, 0.0f, 1e12f);
  config.max_features = args.option_int("--max-features", 0, 0, 1 << 20);
  config.first_step = args.option_int("--sample-step", config.first_step, 1, 8);
  const bool compare = !args.flag("--default-only");
  args.finish();
  for (const auto& [w, h] : sizes) {  // before any output
    const std::string why = image_size_problem(w, h, config);
    if (!why.empty()) throw UsageError("--sizes " + std::to_string(w) + "x" + std::to_string(h) + ": " + why);
  }

  struct Variant {
    const char* name;
    HessianMethod hessian;
    Suppression nms;
  };
  std::vector<Variant> variants = {
      {"multi-pass Hessian, early-Z NMS (default)", HessianMethod::MultiPass, Suppression::EarlyZ}};
  if (compare) {
    variants.push_back(
        {"multi-pass Hessian, single-pass NMS", HessianMethod::MultiPass, Suppression::SinglePass});
    variants.push_back({"single-pass Hessian, early-Z NMS", HessianMethod::SinglePass, Suppression::EarlyZ});
    variants.push_back(
        {"single-pass Hessian, single-pass NMS", HessianMethod::SinglePass, Suppression::SinglePass});
  }

  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench detect — %s, %s (%s)%s\n", info.renderer.c_str(), info.version.c_str(),
              gl::to_string(info.path),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
  std::printf(
      "  input: %s resampled; threshold %g, max_features %d, first sampling step %d; %d runs after %d\n"
      "  warm-up, variants interleaved frame by frame; wall = detect() from upload to keypoints in "
      "memory\n\n",
      image_path.c_str(), config.hessian_threshold, config.max_features, config.first_step, runs, warmup);
  std::vector<std::unique_ptr<GpuDetector>> detectors;
  for (const Variant& v : variants) {
    detectors.push_back(
        std::make_unique<GpuDetector>(ctx, config, gl::ShaderSource::from_environment(), v.hessian, v.nms));
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

    // Per-pass GPU times of the default variant, in separate runs (the
    // per-pass queries add overhead). A pass cannot take longer than the whole
    // frame: Mesa 22.3's llvmpipe sometimes answers a query begun right after
    // a readback or upload with the time since boot; such passes show n/a.
    GpuDetector& detector = *detectors.front();
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
        if (v <= median(wall.front())) valid.push_back(v);
      }
      char gpu[16] = "n/a";
      if (valid.size() * 2 > per_pass[k].size()) std::snprintf(gpu, sizeof gpu, "%.2f", median(valid));
      std::printf("    %-24s %8s %8.2f  (%d draws)\n", names[k].c_str(), gpu, median(per_pass_wall[k]),
                  draws[k]);
    }
    std::fflush(stdout);
  }
  return 0;
}

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
int bench_describe(Args& args) {
  const int runs = args.option_int("--runs", 7, 1, 1000);
  const int warmup = args.option_int("--warmup", 2, 0, 1000);
  const std::string image_path = args.option("--image", asset_dir() + "/graf1.png");
  const std::string counts_text = args.option("--counts", "500,2000,8000");
  const bool extended = args.flag("--extended");
  const int first_step = args.option_int("--sample-step", DetectorConfig{}.first_step, 1, 8);
  const float second = args.option_float("--second-orientation", 0.0f, 0.0f, 1.0f);
  args.finish();
  const std::vector<int> counts = int_list("--counts", counts_text, 65536);
  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench describe — %s, %s%s\n", info.renderer.c_str(), info.version.c_str(),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
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

// bench match: two nearest neighbours of m queries among m trains (64-D,
// random unit descriptors, fixed seed), one direction, as Chariot & Keriven's
// table: plain GPU (distance texture) vs fused GPU vs the CPU reference.
int bench_match(Args& args) {
  const int runs = args.option_int("--runs", 5, 1, 1000);
  const std::string sizes_text = args.option("--sizes", "512,1024,2048,4096,8192");
  const int cpu_limit = args.option_int("--cpu-up-to", 4096, 0, 1 << 20);
  args.finish();
  const std::vector<int> sizes = int_list("--sizes", sizes_text, 65536);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench match — %s, %s%s\n", info.renderer.c_str(), info.version.c_str(),
              software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
  std::printf(
      "  m x m two nearest neighbours, 64-D random unit descriptors, one direction, no sign filter;\n"
      "  wall ms = upload + passes + readback (glFinish to result), median of %d runs after 1 warm-up;\n"
      "  CPU reference (brute force, one thread) up to m = %d\n\n",
      runs, cpu_limit);
  std::printf("%6s | %14s | %14s | %10s\n", "m", "plain GPU wall", "fused GPU wall", "CPU ms");
  MatchConfig config;
  config.laplacian = false;
  for (const int m : sizes) {
    const Features q = random_descriptors(m, 1), t = random_descriptors(m, 2);
    // (GL timer queries are not used here: llvmpipe answers a query that
    // spans a texture upload with the time since boot.)
    double results[2] = {-1, -1};
    for (int method = 0; method < 2; ++method) {
      if (method == 0 && m > info.max_texture_size) continue;  // the plain matcher's limit
      GpuMatcher matcher(ctx, config, gl::ShaderSource::from_environment(), std::size_t(256) << 20,
                         method == 0 ? MatchMethod::Plain : MatchMethod::Fused);
      std::vector<double> wall;
      for (int i = 0; i < runs + 1; ++i) {
        gl::finish();
        const Clock::time_point t0 = Clock::now();
        matcher.two_nearest(q, t);
        if (i > 0) wall.push_back(ms_since(t0));
      }
      results[method] = median(wall);
    }
    std::string cpu_cell = "-";
    if (m <= cpu_limit) {
      std::vector<double> cpu_ms;
      for (int i = 0; i < std::max(1, runs / 2); ++i) {
        const Clock::time_point t0 = Clock::now();
        cpu::two_nearest(q, t, false);
        cpu_ms.push_back(ms_since(t0));
      }
      char cell[32];
      std::snprintf(cell, sizeof cell, "%10.1f", median(cpu_ms));
      cpu_cell = cell;
    }
    char plain_cell[32];
    if (results[0] < 0) {
      std::snprintf(plain_cell, sizeof plain_cell, "%14s", "- (too many)");
    } else {
      std::snprintf(plain_cell, sizeof plain_cell, "%14.1f", results[0]);
    }
    std::printf("%6d | %s | %14.1f | %10s\n", m, plain_cell, results[1], cpu_cell.c_str());
    std::fflush(stdout);
  }
  return 0;
}

// bench (everything): the whole job per frame at the standard sizes, GPU and
// CPU side by side, with GPU milliseconds per stage; then the matcher.
int bench_all(Args& args) {
  const int runs = args.option_int("--runs", 5, 1, 1000);
  const std::string json = args.option("--json", "");
  const std::string image_path = args.option("--image", asset_dir() + "/graf1.png");
  DetectorConfig config;
  config.first_step = args.option_int("--sample-step", config.first_step, 1, 8);
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
               info.version.c_str(),
               software ? "\n  llvmpipe: the \"GPU\" is the CPU; these are CPU-emulated GPU times" : "");
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
  constexpr int kStages = 7;
  const char* stages[kStages][2] = {{"integral_", "integral"},    {"hessian_", "hessian"},
                                    {"extrema_", "extrema"},      {"select_", "select"},
                                    {"compact_", "compact"},      {"orientation_", "orientation"},
                                    {"descriptor_", "descriptor"}};
  std::string records;
  std::fprintf(listing, "%-10s %9s %7s %9s |", "size", "GPU ms", "fps", "keypoints");
  for (const auto& stage : stages) std::fprintf(listing, " %11s", stage[1]);
  std::fprintf(listing, " | %9s\n", "CPU ms");
  for (const auto& [w, h] :
       std::vector<std::pair<int, int>>{{320, 240}, {640, 480}, {1280, 720}, {1920, 1080}}) {
    const GrayImage image = resize(photo, w, h);
    GpuDetector detector(ctx, config);
    size_t found = detector.detect_and_compute(image).keypoints.size();
    std::vector<double> wall;
    std::vector<std::vector<double>> stage_ms(kStages);
    std::vector<bool> bogus(kStages, false),
        ran(kStages, false);  // ran: the stage drew (select only with max_features)
    for (int i = 0; i < runs; ++i) {
      gl::finish();
      const Clock::time_point t0 = Clock::now();
      found = detector.detect_and_compute(image).keypoints.size();
      wall.push_back(ms_since(t0));
    }
    detector.runner().set_profiling(true, /*finish_each_pass=*/software);
    for (int i = 0; i < runs; ++i) {
      detector.detect_and_compute(image);
      double sums[kStages] = {};
      for (const auto& p : detector.runner().take_profile()) {
        const double ms = software ? p.wall_milliseconds : p.milliseconds;
        for (int k = 0; k < kStages; ++k) {
          if (p.name.rfind(stages[k][0], 0) != 0) continue;
          sums[k] += ms;
          ran[static_cast<size_t>(k)] = true;
          if (!software && ms > median(wall)) bogus[static_cast<size_t>(k)] = true;  // a timer artefact
        }
      }
      for (int k = 0; k < kStages; ++k) stage_ms[static_cast<size_t>(k)].push_back(sums[k]);
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
                  records.empty() ? "" : ",\n", label, median(wall), 1000.0 / median(wall), found,
                  median(cpu_ms), software ? "wall between glFinish calls" : "GPU timer queries");
    records += head;
    for (int k = 0; k < kStages; ++k) {
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
      records += std::string(k ? ", " : "") + "\"" + stages[k][1] + "\": " + value;
    }
    records += "}}";
    std::fprintf(listing, " | %9.1f\n", median(cpu_ms));
    std::fflush(listing);
  }
  // The matcher: m x m two nearest neighbours, fused GPU vs CPU.
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

}  // namespace

int bench(Args args) {
  const std::string what = args.next_word();
  if (what.empty()) return bench_all(args);
  if (what == "integral") return bench_integral(args);
  if (what == "detect") return bench_detect(args);
  if (what == "describe") return bench_describe(args);
  if (what == "match") return bench_match(args);
  throw UsageError("bench takes no stage (everything) or one of: integral, detect, describe, match");
}

}  // namespace glsurf::app
