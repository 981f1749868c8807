// The option rows several commands share, and their readers.
#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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
      text("--format", "txt|bin|opencv|colmap|lowe", "",
           "the feature files' format: glsurf's txt or bin (which match reads), or for other tools OpenCV's "
           "FileStorage (YAML or XML by the name), COLMAP's feature_importer text, Lowe's .key (docs/cli.md)",
           "by -o's name: bin for .bin, opencv for .yml .yaml .xml, lowe for .key, else txt"),
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

OptionTable tiling_table() {
  return {
      text(
          "--memory-budget", "BYTES", "",
          "the most memory one detection may take, with the image itself (1 byte a pixel): a larger image is "
          "detected in tiles that fit, with the same keypoints (e.g. 2G, 512M)",
          "what the machine has available"),
      integer("--tile-size", "N", 0, 0, 1 << 20,
              "detect an image larger than N x N pixels in tiles of at most N x N (0: only where the memory "
              "budget or the GPU's texture size asks for it)"),
  };
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
  if (!format.empty() && format != "txt" && format != "bin" && format != "opencv" && format != "colmap" &&
      format != "lowe") {
    throw UsageError("--format must be txt, bin, opencv, colmap or lowe, not '" + format + "'");
  }
  return format;
}

std::string feature_format(const std::string& given, const std::string& out_file) {
  if (!given.empty()) return given;
  const std::string extension = std::filesystem::path(out_file).extension().string();
  if (strcasecmp(extension.c_str(), ".bin") == 0) return "bin";
  if (storage_kind(out_file) != StorageKind::None) return "opencv";
  if (strcasecmp(extension.c_str(), ".key") == 0) return "lowe";
  return "txt";
}

void FeatureWriter::write(std::ostream& out, const Features& features) const {
  if (format == "txt" || format == "bin") {
    write_features(out, features, format == "bin" ? FeatureFormat::Bin : FeatureFormat::Txt);
  } else if (format == "opencv") {
    write_opencv_features(out, features, storage);
  } else if (format == "colmap") {
    write_colmap_features(out, features);
  } else {
    write_lowe_features(out, features);
  }
}

std::string FeatureWriter::batch_file(const std::string& dir, const std::string& image) const {
  const std::filesystem::path name = std::filesystem::path(image).filename();
  if (format == "colmap") return (dir / name).string() + ".txt";
  const char* extension = format == "opencv" ? ".yml"
                          : format == "lowe" ? ".key"
                          : format == "bin"  ? ".bin"
                                             : ".txt";
  return (dir / name.stem()).string() + extension;
}

FeatureWriter feature_writer(const std::string& format, const std::string& out_file, bool batch) {
  FeatureWriter writer;
  writer.format = format;
  writer.binary = format == "bin";
  const bool named_file = !batch && !out_file.empty() && standard_stream_of(out_file) == 0;
  if (format == "opencv") {
    writer.storage = named_file ? storage_kind(out_file) : StorageKind::Yaml;
    if (writer.storage == StorageKind::None) {
      throw UsageError(
          "--format opencv: -o must end in .yml, .yaml (YAML) or .xml (XML), as OpenCV's "
          "FileStorage reads by the name, not '" +
          out_file + "'");
    }
  }
  if (format == "colmap" && named_file &&
      (out_file.size() < 4 || out_file.compare(out_file.size() - 4, 4, ".txt") != 0)) {
    throw UsageError(
        "--format colmap: -o must end in .txt (COLMAP's feature_importer reads IMAGE_NAME.txt, "
        "e.g. box.png.txt), not '" +
        out_file + "'");
  }
  return writer;
}

double parse_bytes(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  const double scale = unit.empty()                 ? 1
                       : unit == "K" || unit == "k" ? 1e3
                       : unit == "M" || unit == "m" ? 1e6
                       : unit == "G" || unit == "g" ? 1e9
                       : unit == "T" || unit == "t" ? 1e12
                                                    : -1;
  if (end == text.c_str() || scale < 0 || !(value > 0) || !std::isfinite(value * scale)) return -1;
  return value * scale;
}

Tiling tiling_options(Args& args) {
  Tiling tiling;
  const std::string budget = args.option("--memory-budget");
  if (!budget.empty()) {
    tiling.memory_budget = parse_bytes(budget);
    if (tiling.memory_budget < 0)
      throw UsageError("--memory-budget must be a size in bytes such as 2G or 512M, not '" + budget + "'");
  }
  tiling.tile_size = args.option_int("--tile-size");
  return tiling;
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
