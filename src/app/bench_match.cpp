// glsurf bench match — m x m two-nearest-neighbour matching: plain and
// fused GPU, and the CPU reference.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "app/bench_common.hpp"
#include "baseline/matcher_plain.hpp"
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

// bench match: two nearest neighbours of m queries among m trains (64-D,
// random unit descriptors, fixed seed), one direction, as Chariot & Keriven's
// table: plain GPU (distance texture) vs fused GPU vs the CPU reference.
int run_match(Args& args) {
  const int runs = args.option_int("--runs");
  const std::string sizes_text = args.option("--sizes");
  const int cpu_limit = args.option_int("--cpu-up-to");
  args.finish();
  const std::vector<int> sizes = int_list("--sizes", sizes_text, 65536);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::printf("glsurf bench match — %s, %s%s\n", info.renderer.c_str(), info.version.c_str(),
              software_note(software));
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
      // 0: the plain baseline (baseline/matcher_plain.hpp), 1: the production matcher.
      const auto time = [&](auto& matcher) {
        std::vector<double> wall;
        for (int i = 0; i < runs + 1; ++i) {
          gl::finish();
          const Clock::time_point t0 = Clock::now();
          matcher.two_nearest(q, t);
          if (i > 0) wall.push_back(ms_since(t0));
        }
        return median(wall);
      };
      const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
      if (method == 0) {
        baseline::PlainMatcher plain(ctx, config, shaders, std::size_t(256) << 20);
        results[method] = time(plain);
      } else {
        GpuMatcher fused(ctx, config, shaders, std::size_t(256) << 20);
        results[method] = time(fused);
      }
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

OptionTable match_options() {
  return {runs_option(5), text("--sizes", "M,...", "512,1024,2048,4096,8192", "the numbers of descriptors m"),
          integer("--cpu-up-to", "M", 4096, 0, 1 << 20, "the CPU reference only up to m = M")};
}

}  // namespace

Command bench_match_command() {
  return {"bench match",
          "",
          "m x m two-nearest-neighbour matching: plain and fused GPU, CPU",
          "64-value random unit descriptors (fixed seed), one direction, as Chariot and Keriven's table.",
          match_options,
          run_match,
          "bench match --sizes 1024,4096",
          {}};
}

}  // namespace glsurf::app
