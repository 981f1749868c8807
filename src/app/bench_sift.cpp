// glsurf bench sift — SIFT detect + describe per frame: the GPU pipeline's
// wall clock (steady state in one process, after a warm-up frame), its
// passes by timer key, and the CPU reference.
#include <cstdio>
#include <map>

#include "app/bench_common.hpp"
#include "app/json.hpp"
#include "cpu/sift.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "gl/timer.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "sift/detector.hpp"

namespace glsurf::app {

namespace {

int run_sift(Args& args) {
  const int runs = args.option_int("--runs");
  const std::string json = args.option("--json");
  const std::string image_path = args.option("--image");
  const std::vector<std::pair<int, int>> sizes = parse_sizes(args.option("--sizes"));
  const bool cpu = !args.flag("--no-cpu");
  SiftConfig config;
  config.first_octave = args.option_int("--first-octave");
  args.finish();
  FILE* const listing = standard_stream_of(json) == 1 ? stderr : stdout;
  if (!json.empty()) {
    check_not_an_input("--json", json, {image_path});
    check_writable(json);
  }
  const GrayImage photo = load_gray(image_path);
  gl::Context ctx = gl::Context::headless();
  const gl::ContextInfo& info = ctx.info();
  const bool software = info.software();
  std::fprintf(listing, "glsurf bench sift — %s, %s, %s%s\n", info.vendor.c_str(), info.renderer.c_str(),
               info.version.c_str(), software_note(software));
  std::fprintf(
      listing,
      "  SIFT detection + orientation + descriptors per frame, %s resampled, first octave %d; median "
      "of %d runs after 1 warm-up;\n  ms per pass (separate runs): %s\n\n",
      image_path.c_str(), config.first_octave, runs,
      software ? "wall clock between glFinish calls around each pass" : "GPU timer queries");
  std::string records;
  for (const auto& [w, h] : sizes) {
    const GrayImage image = resize(photo, w, h);
    sift::GpuSift detector(ctx, config);
    size_t found = detector.detect_and_compute(image).keypoints.size();
    std::vector<double> wall;
    for (int i = 0; i < runs; ++i) {
      gl::finish();
      const Clock::time_point t0 = Clock::now();
      found = detector.detect_and_compute(image).keypoints.size();
      wall.push_back(ms_since(t0));
    }
    std::map<std::string, std::vector<double>> passes;
    detector.runner().set_profiling(true, /*finish_each_pass=*/software);
    for (int i = 0; i < runs; ++i) {
      detector.detect_and_compute(image);
      std::map<std::string, double> sums;
      for (const auto& p : detector.runner().take_profile())
        sums[p.name] += software ? p.wall_milliseconds : p.milliseconds;
      for (const auto& [name, ms] : sums) passes[name].push_back(ms);
    }
    detector.runner().set_profiling(false);
    double cpu_ms = -1;
    size_t cpu_found = 0;
    if (cpu) {
      const Clock::time_point t0 = Clock::now();
      cpu_found = cpu::sift::detect_and_compute(image, config).keypoints.size();
      cpu_ms = ms_since(t0);
    }
    char label[32], cpu_text[64] = "-";
    std::snprintf(label, sizeof label, "%dx%d", w, h);
    if (cpu) std::snprintf(cpu_text, sizeof cpu_text, "%.0f ms, %zu entries (one run)", cpu_ms, cpu_found);
    std::fprintf(listing, "%-10s GPU %9.1f ms, %6zu entries; CPU reference %s\n", label, median(wall), found,
                 cpu_text);
    char head[256];
    std::snprintf(
        head, sizeof head,
        "%s    {\"size\": \"%s\", \"gpu_ms\": %.2f, \"entries\": %zu, \"cpu_ms\": %s, \"passes_ms\": {",
        records.empty() ? "" : ",\n", label, median(wall), found,
        cpu_ms >= 0 ? std::to_string(cpu_ms).c_str() : "null");
    records += head;
    bool first = true;
    for (const auto& [name, ms] : passes) {
      std::fprintf(listing, "    %-28s %9.2f\n", name.c_str(), median(ms));
      char value[96];
      std::snprintf(value, sizeof value, "%s\"%s\": %.3f", first ? "" : ", ", name.c_str(), median(ms));
      records += value;
      first = false;
    }
    records += "}}";
    std::fflush(listing);
  }
  if (!json.empty()) {
    write_file_atomically(json, false, [&](std::ostream& out) {
      out << "{\n  \"renderer\": \"" << json_escaped(info.renderer)
          << "\",\n  \"software\": " << (software ? "true" : "false")
          << ",\n  \"detector\": " << detector_json(config) << ",\n  \"frames\": [\n"
          << records << "\n  ]\n}\n";
    });
  }
  return 0;
}

OptionTable sift_options() {
  return {runs_option(5),
          text("--json", "OUT", "",
               "the results as JSON (-: on standard output, the table then on standard error)", "none"),
          image_option(),
          text("--sizes", "WxH,...", "640x480,1920x1080", "frame sizes, the image resampled to each"),
          integer("--first-octave", "O", -1, -1, 0, "SIFT's first octave (-1: the image doubled)"),
          flag("--no-cpu", "leave out the CPU reference's run")};
}

}  // namespace

Command bench_sift_command() {
  return {"bench sift",
          "",
          "SIFT detect + describe per frame on the GPU, by pass, and the CPU reference",
          "Each size: the GPU pipeline's wall clock in one process after a warm-up frame (median), the "
          "passes by timer key, and one run of the CPU reference.",
          sift_options,
          run_sift,
          "bench sift --sizes 640x480 --runs 3",
          {}};
}

}  // namespace glsurf::app
