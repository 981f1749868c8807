// The option rows several commands share, and their readers.
#include <strings.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "app/cli.hpp"

namespace glsurf::app {

Option shared_option(const std::string& name) {
  const DetectorConfig detector;
  const MatchConfig matcher;
  const Option rows[] = {
      text("--backend", "gl|cpu", "gl",
           "gl: the GPU through OpenGL (headless EGL); cpu: the CPU reference, which needs no OpenGL"),
      text("--format", "txt|bin", "", "the feature files' format", "bin where -o ends in .bin, else txt"),
      number("--threshold", "T", detector.hessian_threshold, 0.0f, 1e12f,
             "det(H) must exceed it (OpenCV's hessianThreshold, for grey levels 0..255)"),
      integer("--max-features", "N", 0, 0, 1 << 20,
              "keep the N strongest keypoints (0: all; on the GPU the strongest 65,536, with a warning, "
              "when there are more)"),
      integer("--octaves", "N", detector.n_octaves, 1, 8, "octaves of the scale space"),
      integer("--layers", "N", detector.n_octave_layers, 1, 8, "layers searched per octave"),
      integer("--sample-step", "N", detector.first_step, 1, 8,
              "the first octave's sampling step, doubling per octave (1 as OpenCV; OpenSURF's 2 is faster "
              "and finds fewer points)"),
      flag("--upright", "no orientation: every angle 0"),
      flag("--extended", "128-value descriptors instead of 64"),
      number("--second-orientation", "R", 0.0f, 0.0f, 1.0f,
             "a keypoint whose second peak of orientation is R times its first or more is listed again at "
             "that angle, as SIFT (0.8) does (0: one angle; --max-features counts every entry)"),
      flag("--ignore-orientation",
           "a JPEG's stored pixels (without it, a JPEG is turned as its EXIF orientation tag says, as "
           "OpenCV's imread does; keypoints then refer to the turned image)"),
      number("--ratio", "R", matcher.ratio, 0.0f, 1.0f, "Lowe's ratio test (0 or 1 turns it off)"),
      number("--max-distance", "D", matcher.max_distance, 0.0f, 2.0f,
             "drop matches farther apart (0: no limit)"),
      flag("--no-mutual", "keep matches that are not each other's nearest neighbours too"),
      flag("--no-sign", "match keypoints of opposite Laplacian signs too"),
  };
  for (const Option& row : rows) {
    if (row.name == name) return row;
  }
  throw std::logic_error("no shared option " + name);
}

OptionTable detector_table() {
  OptionTable table;
  for (const char* name : {"--threshold", "--max-features", "--octaves", "--layers", "--sample-step",
                           "--upright", "--extended", "--second-orientation"}) {
    table.push_back(shared_option(name));
  }
  return table;
}

OptionTable match_table() {
  OptionTable table;
  for (const char* name : {"--ratio", "--max-distance", "--no-mutual", "--no-sign"}) {
    table.push_back(shared_option(name));
  }
  return table;
}

std::string backend_option(Args& args) {
  const std::string backend = args.option("--backend");
  if (backend != "gl" && backend != "cpu")
    throw UsageError("--backend must be gl or cpu, not '" + backend + "'");
  return backend;
}

std::string format_option(Args& args) {
  const std::string format = args.option("--format");
  if (!format.empty() && format != "txt" && format != "bin") throw UsageError("--format must be txt or bin");
  return format;
}

std::string feature_format(const std::string& given, const std::string& out_file) {
  if (!given.empty()) return given;
  return strcasecmp(std::filesystem::path(out_file).extension().c_str(), ".bin") == 0 ? "bin" : "txt";
}

DetectorConfig detector_options(Args& args) {
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold");
  config.max_features = args.option_int("--max-features");
  config.n_octaves = args.option_int("--octaves");
  config.n_octave_layers = args.option_int("--layers");
  config.first_step = args.option_int("--sample-step");
  config.upright = args.flag("--upright");
  config.extended = args.flag("--extended");
  config.second_orientation = args.option_float("--second-orientation");
  if (config.upright && config.second_orientation > 0) {
    throw UsageError("--second-orientation needs oriented keypoints, not --upright");
  }
  return config;
}

LoadOptions load_options(Args& args) {
  LoadOptions options;
  options.exif_orientation = !args.flag("--ignore-orientation");
  options.warn = [](const std::string& what) {
    std::fprintf(stderr, "glsurf: warning: %s\n", one_line(what).c_str());
  };
  return options;
}

MatchConfig match_options(Args& args) {
  MatchConfig config;
  config.ratio = args.option_float("--ratio");
  config.max_distance = args.option_float("--max-distance");
  config.mutual = !args.flag("--no-mutual");
  config.laplacian = !args.flag("--no-sign");
  return config;
}

std::string match_summary(const MatchConfig& config) {
  char ratio[32] = "no ratio test";
  if (config.ratio > 0 && config.ratio < 1) std::snprintf(ratio, sizeof ratio, "ratio %.7g", config.ratio);
  std::string text = ratio;
  if (config.mutual) text += ", mutual";
  if (config.laplacian) text += ", Laplacian sign";
  if (config.max_distance > 0) {
    char distance[48];
    std::snprintf(distance, sizeof distance, ", distance <= %.7g", config.max_distance);
    text += distance;
  }
  return text;
}

}  // namespace glsurf::app
