// glsurf — SURF on the GPU through OpenGL. Command-line entry point.
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "app/cli.hpp"
#include "cpu/descriptor.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace {

const char* kUsage =
    "usage: glsurf <command> [options]\n"
    "\n"
    "commands:\n"
    "  info [--window]        OpenGL vendor, renderer, version, context path and limits\n"
    "                         (headless EGL by default; --window opens a GLFW window)\n"
    "  bench [--runs N] [--json OUT] [--image PATH] [--sample-step N]\n"
    "                         everything: per frame at 320x240 .. 1920x1080, GPU (with ms per\n"
    "                         stage) and CPU side by side, then the matcher for m = 512 .. 8192;\n"
    "                         --json -: the JSON on standard output, the table on standard error\n"
    "  bench integral         median GPU and CPU times of the integral image\n"
    "        [--runs N] [--warmup N] [--image PATH] [--sizes WxH,WxH,...] [--top-pixels T0]\n"
    "        [--scan-radix R] [--profile]  (radix of the 1-D scans, 2..64, default 4; GPU time per pass)\n"
    "  bench detect           wall clock of the detector's variants (interleaved), per-pass GPU\n"
    "                         times, and the CPU reference\n"
    "        [--runs N] [--warmup N] [--image PATH] [--sizes WxH,...] [--threshold T] [--max-features N]\n"
    "        [--default-only] [--sample-step N]\n"
    "  bench describe         GPU time of orientation and descriptors for N keypoints, and the\n"
    "                         whole detection + description at 640x480\n"
    "        [--runs N] [--warmup N] [--image PATH] [--counts N,N,...] [--extended] [--sample-step N]\n"
    "        [--second-orientation R]\n"
    "  bench match            m x m two-nearest-neighbour matching: plain and fused GPU, CPU\n"
    "        [--runs N] [--sizes M,M,...] [--cpu-up-to M]\n"
    "  detect IMAGE|DIR...    SURF keypoints of each image (a directory: its images in name order)\n"
    "        [-o OUT] [--backend gl|cpu] [--threshold T] [--max-features N]\n"
    "        [--octaves N] [--layers N] [--sample-step N] [--upright] [--extended] [--format txt|bin]\n"
    "        [--second-orientation R] [--ignore-orientation]\n"
    "                         images: png, jpg, bmp, tga, binary pgm/ppm, also piped (- or /dev/stdin);\n"
    "                         a JPEG is turned as its EXIF orientation tag says (as OpenCV's imread),\n"
    "                         unless --ignore-orientation: keypoints then refer to the stored pixels;\n"
    "                         --threshold: det(H) must exceed it (default 100, OpenCV's\n"
    "                         hessianThreshold, for grey levels 0..255); --octaves (default 4);\n"
    "                         --layers searched per octave (default 2);\n"
    "                         --max-features: the N strongest (0, the default: all; on the GPU\n"
    "                         the strongest 65,536 with a warning when there are more);\n"
    "                         angles: degrees counter-clockwise as the image is shown (y down),\n"
    "                         as OpenCV's SURF gives them;\n"
    "                         one image: OUT is a file (default: standard output; in bin\n"
    "                         without --format when its name ends in .bin);\n"
    "                         several, or OUT an existing directory: one NAME.txt|.bin per image;\n"
    "                         --sample-step: the first octave's sampling step, doubling per octave\n"
    "                         (1 as OpenCV, the default; OpenSURF's 2 is faster, finds fewer points);\n"
    "                         --second-orientation: a keypoint whose second peak of orientation is\n"
    "                         R times its first or more is listed again at that angle, as SIFT (0.8)\n"
    "                         does (0, the default: one angle; --max-features counts every entry)\n"
    "  describe IMAGE FEATURES\n"
    "                         orientation and descriptors of the keypoints of a feature file in\n"
    "                         IMAGE (every field but the angle kept; angles recomputed); either may be\n"
    "                         - for standard input\n"
    "        [-o OUT] [--backend gl|cpu] [--upright] [--extended] [--format txt|bin] [--keep-angles]\n"
    "        [--ignore-orientation]\n"
    "                         (without --format, bin when OUT ends in .bin); --keep-angles: at the\n"
    "                         file's angles (0 to 360; e.g. detect's --second-orientation entries)\n"
    "                         instead of computing them; --ignore-orientation as detect's\n"
    "  match [A B]            detect, describe and match two images, verify with a homography;\n"
    "                         with no images, the bundled graf1/graf3 pair and its ground truth;\n"
    "                         one of them may be - (an image piped in); either may instead be\n"
    "                         a feature file with descriptors (detect's output, named), matched as it is\n"
    "        [-o matches.txt] [--homography H.txt] [--draw out.png] [--truth H.xml|H.txt]\n"
    "        [--backend gl|cpu] [--threshold T] [--max-features N] [--octaves N] [--layers N]\n"
    "        [--sample-step N] [--upright] [--extended] [--second-orientation R] [--ratio R]\n"
    "        [--no-mutual] [--no-sign] [--max-distance D] [--ignore-orientation]\n"
    "                         (--ratio: Lowe's test, default 0.8, 0 or 1 turns it off;\n"
    "                         --max-distance: drop matches farther apart, default 0: no limit;\n"
    "                         a homography needs 8 inliers; --draw writes PNG)\n"
    "  view [IMAGE|DIR...|-]  images in a window with their keypoints drawn from the GPU\n"
    "        [--raw WxH [--pix gray|rgb] -]  raw frames from standard input (e.g. from ffmpeg)\n"
    "        [--headless --frames N] [--screenshot out.png] [--threshold T] [--max-features N]\n"
    "        [--upright] [--sample-step N] [--width W] [--height H] [--hud on|off] [--match]\n"
    "        [--second-orientation R]  (a second tick where a keypoint has one; match mode then\n"
    "                         matches every entry, as match does)\n"
    "        [--ratio R] [--no-mutual] [--no-sign] [--max-distance D]   (match mode's, as in match)\n"
    "        [--ignore-orientation]  (JPEGs' stored pixels, as detect's option)\n"
    "        keys: space pause, n/p next/previous, +/- threshold, u upright, m match mode,\n"
    "              r set reference, s screenshot, h help, q/Esc quit\n"
    "  warp IMAGE OUTDIR      a synthetic sequence img1..imgN + H1to2p..H1toNp (Oxford format)\n"
    "                         in OUTDIR, which must be new or empty; IMAGE may be - (piped in)\n"
    "        [--rotate A,..] [--scale S,..] [--perspective P,..] [--blur SIGMA,..]\n"
    "        [--brightness B,..] [--noise SIGMA,..]   (equal-length lists; one image per value)\n"
    "                         (--perspective P: a horizontal tilt, projective term P / width)\n"
    "        [--ignore-orientation]  (IMAGE's stored pixels, as detect's option)\n"
    "  eval SEQDIR            repeatability, correct matches, matching score, precision and\n"
    "                         homography corner error for each pair 1->k (Mikolajczyk protocol)\n"
    "        [--backend gl|cpu] [--json OUT] [--threshold T] [--max-features N]\n"
    "        [--octaves N] [--layers N] [--sample-step N] [--upright] [--extended]\n"
    "        [--second-orientation R] [--ratio R] [--no-mutual] [--no-sign] [--max-distance D]\n"
    "        [--ignore-orientation]  (matching as in match; images as in detect)\n"
    "                         (--json -: the JSON on standard output, the table on standard error)\n"
    "  help [COMMAND]         this text, or a command's part of it (also glsurf COMMAND --help;\n"
    "                         bench's parts: help bench detect, glsurf bench detect --help)\n"
    "  version                glsurf's version (also --version)\n";

// The entries of kUsage for `command` ("bench" has several): each entry is
// a line "  NAME ..." and the lines under it, up to the next entry.
std::string usage_of(const std::string& command) {
  std::string out, line;
  std::istringstream lines(kUsage);
  bool in_entry = false;
  while (std::getline(lines, line)) {
    const bool entry =
        line.size() > 2 && line.compare(0, 2, "  ") == 0 && std::islower(static_cast<unsigned char>(line[2]));
    if (entry) in_entry = line.compare(2, command.size() + 1, command + " ") == 0;
    if (in_entry) out += line + "\n";
  }
  return out;
}

int info(Args args) {
  const bool window = args.flag("--window");
  args.finish();
  const gl::Context ctx =
      window ? gl::Context::window(320, 240, "glsurf info", false) : gl::Context::headless();
  const gl::ContextInfo& i = ctx.info();
  std::printf("context:          %s\n", gl::to_string(i.path));
  if (!i.egl_device.empty()) std::printf("EGL device:       %s\n", i.egl_device.c_str());
  std::printf("vendor:           %s\n", i.vendor.c_str());
  std::printf("renderer:         %s\n", i.renderer.c_str());
  std::printf("version:          %s\n", i.version.c_str());
  std::printf("GLSL:             %s\n", i.glsl_version.c_str());
  std::printf("max texture size: %d\n", i.max_texture_size);
  std::printf("draw buffers:     %d (colour attachments %d)\n", i.max_draw_buffers, i.max_color_attachments);
  std::printf("texture units:    %d (fragment)\n", i.max_texture_units);
  std::printf("timer queries:    %s\n", i.timer_query ? "yes" : "no");
  return 0;
}

// A word that reads as an option or flag ("-o", "--upright"; "-" alone is
// standard input): never taken as a positional argument.
bool option_like(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

}  // namespace

bool Args::flag(const std::string& name) {
  flags_.push_back(name);
  for (size_t i = 0; i < words_.size(); ++i) {
    if (!used_[i] && words_[i] == name) {
      used_[i] = true;
      taken_.push_back(name);
      return true;
    }
  }
  return false;
}

std::string Args::option(const std::string& name, const std::string& fallback) {
  options_.push_back(name);
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i] || words_[i] != name) continue;
    // The next word on the command line, unless it is gone (taken as a flag)
    // or is itself a long option: then the value was left out.
    if (i + 1 == words_.size() || used_[i + 1] || words_[i + 1].empty() ||
        words_[i + 1].rfind("--", 0) == 0) {
      throw UsageError("option " + name + " needs a value");
    }
    used_[i] = used_[i + 1] = true;
    taken_.push_back(name);
    return words_[i + 1];
  }
  return fallback;
}

namespace {

// The value of option `name` parsed by `parse` (std::stol, std::stod), which
// must use the whole text and lie in [min_value, max_value].
template <typename T, typename Parse>
T parse_option(const std::string& name, const std::string& text, T min_value, T max_value, const char* kind,
               Parse parse) {
  size_t used = 0;
  T value{};
  bool unrepresentable = false;
  try {
    // Decimal only: std::stof would also read hexadecimal ("0x10" as 16).
    if (text.find_first_of("xX") == std::string::npos) value = static_cast<T>(parse(text, &used));
  } catch (const std::out_of_range&) {
    used = 0;
    unrepresentable = true;  // e.g. 1e-400, 1e400, or a float option's 1e-50
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value >= min_value && value <= max_value)) {
    auto show = [](T v) {
      if constexpr (std::is_integral_v<T>) return std::to_string(v);  // in full, not 1.04858e+06
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(v));
      return std::string(buffer);
    };
    throw UsageError("option " + name + " needs " + kind + " from " + show(min_value) + " to " +
                     show(max_value) + ", got '" + text + "'" +
                     (unrepresentable ? " (too small or too large to represent)" : ""));
  }
  return value;
}

}  // namespace

int Args::option_int(const std::string& name, int fallback, int min_value, int max_value) {
  const std::string text = option(name, "");
  if (text.empty()) return fallback;
  const long value =
      parse_option<long>(name, text, min_value, max_value, "an integer",
                         [](const std::string& t, size_t* used) { return std::stol(t, used); });
  return static_cast<int>(value);
}

float Args::option_float(const std::string& name, float fallback, float min_value, float max_value) {
  const std::string text = option(name, "");
  if (text.empty()) return fallback;
  // Read as a double and rounded to the nearest float before the range check
  // (so "1e12" is the bound 1e12f): std::stof throws out_of_range for values
  // that only a subnormal float holds (1e-40), which are valid thresholds. A
  // value that rounds to 0 or to infinity is unrepresentable (a --max-distance
  // of 1e-50 must not turn into 0, "no maximum"); "inf" itself is merely out
  // of the option's range.
  const auto nearest_float = [](const std::string& t, size_t* used) {
    const double wide = std::stod(t, used);
    const float narrow = static_cast<float>(wide);
    if ((narrow == 0.0f && wide != 0.0) || (std::isinf(narrow) && !std::isinf(wide)))
      throw std::out_of_range(t);
    return narrow;
  };
  return parse_option<float>(name, text, min_value, max_value, "a number", nearest_float);
}

std::string asset_dir() {
  namespace fs = std::filesystem;
  static const std::string dir = [] {
    // Beside an installed glsurf: GLSURF_INSTALLED_ASSETS from its bin
    // directory (../share/glsurf/assets by default). A glsurf run from its
    // build tree uses the source tree's even if an install lies beside it.
    std::error_code ec, unknown;
    const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec || fs::equivalent(bin, GLSURF_BUILD_DIR, unknown)) return std::string(GLSURF_ASSET_DIR);
    const fs::path installed = (bin / GLSURF_INSTALLED_ASSETS).lexically_normal();
    return fs::is_directory(installed, ec) ? installed.string() : std::string(GLSURF_ASSET_DIR);
  }();
  return dir;
}

gl::Context headless_or_hint() {
  try {
    return gl::Context::headless();
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; or run with --backend cpu");
  }
}

namespace {
// Bytes of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 if there is none.
size_t utf8_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned lead = byte(i);
  const auto tail = [&](size_t k, unsigned low = 0x80, unsigned high = 0xbf) {
    return byte(k) >= low && byte(k) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return tail(i + 1) ? 2 : 0;
  if (lead == 0xe0) return tail(i + 1, 0xa0) && tail(i + 2) ? 3 : 0;
  if (lead == 0xed) return tail(i + 1, 0x80, 0x9f) && tail(i + 2) ? 3 : 0;
  if (lead >= 0xe1 && lead <= 0xef) return tail(i + 1) && tail(i + 2) ? 3 : 0;
  if (lead == 0xf0) return tail(i + 1, 0x90) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return tail(i + 1) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  if (lead == 0xf4) return tail(i + 1, 0x80, 0x8f) && tail(i + 2) && tail(i + 3) ? 4 : 0;
  return 0;
}
}  // namespace

std::string json_escaped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\\ufffd";  // not UTF-8 (a file name may be any bytes): the replacement character
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string backend_option(Args& args) {
  const std::string backend = args.option("--backend", "gl");
  if (backend != "gl" && backend != "cpu")
    throw UsageError("--backend must be gl or cpu, not '" + backend + "'");
  return backend;
}

std::string format_option(Args& args) {
  const std::string format = args.option("--format", "");
  if (!format.empty() && format != "txt" && format != "bin") throw UsageError("--format must be txt or bin");
  return format;
}

std::string feature_format(const std::string& given, const std::string& out_file) {
  if (!given.empty()) return given;
  return strcasecmp(std::filesystem::path(out_file).extension().c_str(), ".bin") == 0 ? "bin" : "txt";
}

DetectorConfig detector_options(Args& args) {
  DetectorConfig config;
  config.hessian_threshold = args.option_float("--threshold", config.hessian_threshold, 0.0f, 1e12f);
  config.max_features = args.option_int("--max-features", 0, 0, 1 << 20);
  config.n_octaves = args.option_int("--octaves", config.n_octaves, 1, 8);
  config.n_octave_layers = args.option_int("--layers", config.n_octave_layers, 1, 8);
  config.first_step = args.option_int("--sample-step", config.first_step, 1, 8);
  config.upright = args.flag("--upright");
  config.extended = args.flag("--extended");
  config.second_orientation = args.option_float("--second-orientation", 0.0f, 0.0f, 1.0f);
  if (config.upright && config.second_orientation > 0) {
    throw UsageError("--second-orientation needs oriented keypoints, not --upright");
  }
  return config;
}

LoadOptions load_options(Args& args) {
  LoadOptions options;
  options.exif_orientation = !args.flag("--ignore-orientation");
  return options;
}

MatchConfig match_options(Args& args) {
  MatchConfig config;
  config.ratio = args.option_float("--ratio", config.ratio, 0.0f, 1.0f);
  config.max_distance = args.option_float("--max-distance", config.max_distance, 0.0f, 2.0f);
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

void check_image_size(const std::string& name, const GrayImage& image, const DetectorConfig& config,
                      const GpuDetector* detector) {
  const std::string why = detector ? detector->size_problem(image.width, image.height)
                                   : image_size_problem(image.width, image.height, config);
  if (!why.empty()) throw Error(name + ": " + why);
}

Features describe_file(GpuDetector* detector, const DetectorConfig& config, const GrayImage& image,
                       const std::string& path, DescriptorTextures* resident) {
  Features features;
  try {
    features =
        detector ? detector->detect_and_compute(image, resident) : cpu::detect_and_compute(image, config);
  } catch (const Error& e) {
    if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
    throw Error(path + ": " + e.what());
  }
  if (detector && detector->truncated_last_frame()) {
    std::fprintf(stderr,
                 "glsurf: warning: %s: more keypoints than the point list holds; kept the %zu strongest "
                 "(raise --threshold or set --max-features)\n",
                 one_line(path).c_str(), features.keypoints.size());
  }
  return features;
}

void check_not_an_input(const std::string& option, const std::string& output,
                        const std::vector<std::string>& inputs) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(output, error)) return;
  for (const std::string& input : inputs) {
    if (!input.empty() && std::filesystem::equivalent(output, input, error) && !error) {
      throw UsageError(option + " " + output + " would overwrite the input " + input);
    }
  }
}

void check_png_name(const std::string& option, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty() && strcasecmp(ext.c_str(), ".png") != 0) {
    throw UsageError(option + " writes PNG: name it .png, not '" + path + "'");
  }
}

std::vector<std::string> expand_image_arguments(const std::vector<std::string>& names,
                                                std::vector<bool>* listed,
                                                std::vector<std::string>* empty_directories) {
  std::vector<std::string> files, empty;
  for (const std::string& name : names) {
    std::error_code ec;
    if (!std::filesystem::is_directory(name, ec)) {
      files.push_back(input_path(name));
      if (listed) listed->push_back(false);
      continue;
    }
    const std::vector<std::string> found = images_in_directory(name);
    if (found.empty()) empty.push_back(name);
    files.insert(files.end(), found.begin(), found.end());
    if (listed) listed->insert(listed->end(), found.size(), true);
  }
  if (empty_directories) {
    *empty_directories = empty;
  } else if (!files.empty()) {  // with nothing at all to read the caller's error says so, in one line
    for (const std::string& name : empty)
      std::fprintf(stderr, "glsurf: warning: %s: no images in this directory\n", one_line(name).c_str());
  }
  return files;
}

std::string detector_json(const DetectorConfig& config) {
  char text[256];
  std::snprintf(text, sizeof text,
                "{\"threshold\": %.7g, \"octaves\": %d, \"layers\": %d, \"sample_step\": %d, "
                "\"max_features\": %d, \"upright\": %s, \"extended\": %s, \"second_orientation\": %.7g}",
                config.hessian_threshold, config.n_octaves, config.n_octave_layers, config.first_step,
                config.max_features, config.upright ? "true" : "false", config.extended ? "true" : "false",
                config.second_orientation);
  return text;
}

std::string matcher_json(const MatchConfig& config) {
  // A filter that is off (ratio 0 or 1, distance 0) is null.
  char ratio[32] = "null", distance[32] = "null", text[192];
  if (config.ratio > 0 && config.ratio < 1) std::snprintf(ratio, sizeof ratio, "%.7g", config.ratio);
  if (config.max_distance > 0) std::snprintf(distance, sizeof distance, "%.7g", config.max_distance);
  std::snprintf(text, sizeof text,
                "{\"ratio\": %s, \"mutual\": %s, \"laplacian_sign\": %s, \"max_distance\": %s}", ratio,
                config.mutual ? "true" : "false", config.laplacian ? "true" : "false", distance);
  return text;
}

std::string Args::next_word() {
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i]) continue;
    if (option_like(words_[i])) return "";
    used_[i] = true;
    return words_[i];
  }
  return "";
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> out;
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i] || option_like(words_[i])) continue;
    out.push_back(words_[i]);
    used_[i] = true;
  }
  return out;
}

void Args::finish() const {
  // Checked once every option has taken its value, so a value that happens
  // to be an option's name is not taken for that option given again.
  for (size_t i = 0; i < words_.size(); ++i) {
    if (!used_[i] && std::find(taken_.begin(), taken_.end(), words_[i]) != taken_.end()) {
      throw UsageError("option " + words_[i] + " given twice");
    }
  }
  for (size_t i = 0; i < words_.size(); ++i) {
    if (used_[i]) continue;
    const std::string& word = words_[i];
    // --threshold=200 for an option this command reads: the form it takes.
    const size_t equals = word.find('=');
    const std::string name = word.substr(0, equals),
                      value = equals == std::string::npos ? "" : word.substr(equals + 1);
    const auto asked = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (equals != std::string::npos && asked(options_) && !value.empty()) {
      throw UsageError("unexpected argument '" + word + "' (an option's value is the next word: " + name +
                       " " + value + ")");
    }
    if (equals != std::string::npos && asked(flags_)) {
      throw UsageError("unexpected argument '" + word + "' (" + name + " takes no value)");
    }
    throw UsageError("unexpected argument '" + word + "'");
  }
}

}  // namespace glsurf::app

int main(int argc, char** argv) {
  using namespace glsurf;
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
  // is reported and cleaned up like a full disk, instead of killing the
  // process with temporary files left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    std::fputs(app::kUsage, stderr);
    return 2;
  }
  const std::string command = std::string(argv[1]) == "--version" ? "version" : argv[1];
  // The help topic for `command` followed by `next`: bench's sub-command
  // ("bench detect") where `next` names one, else the command itself.
  const auto topic_of = [](const std::string& command, const char* next) {
    const std::string part = next ? command + " " + next : "";
    return command == "bench" && next && next[0] != '-' && !app::usage_of(part).empty() ? part : command;
  };
  // --help anywhere (no option's value starts with --), -h only right after
  // the command (elsewhere it may be a value: -o -h).
  for (int i = 2; i < argc && command != "help"; ++i) {
    const std::string word = argv[i];
    if ((word == "--help" || (word == "-h" && i == 2)) && !app::usage_of(command).empty()) {
      const std::string topic = topic_of(command, argc > 2 ? argv[2] : nullptr);
      errno = 0;  // a failed write's reason, read at once below
      std::printf("usage: glsurf %s ...\n%s", topic.c_str(), app::usage_of(topic).c_str());
      if (!std::ferror(stdout) && std::fflush(stdout) == 0) return 0;
      std::fprintf(stderr, "glsurf: error: %s\n", write_failed("standard output", errno).c_str());
      return 1;
    }
  }
  app::Args args(std::vector<std::string>(argv + 2, argv + argc));
  try {
    int status = -1;
    if (command == "info")
      status = app::info(std::move(args));
    else if (command == "bench")
      status = app::bench(std::move(args));
    else if (command == "detect")
      status = app::detect(std::move(args));
    else if (command == "describe")
      status = app::describe(std::move(args));
    else if (command == "match")
      status = app::match(std::move(args));
    else if (command == "view")
      status = app::view(std::move(args));
    else if (command == "warp")
      status = app::warp(std::move(args));
    else if (command == "eval")
      status = app::eval(std::move(args));
    else if (command == "version") {
      args.finish();
      errno = 0;  // a failed write's reason, read at once below
      std::printf("glsurf %s\n", GLSURF_VERSION);
      if (std::ferror(stdout)) throw Error(write_failed("standard output", errno));
      status = 0;
    } else if (command == "help" || command == "--help" || command == "-h") {
      const std::string topic = argc > 2 ? topic_of(argv[2], argc > 3 ? argv[3] : nullptr) : "";
      const std::string part = app::usage_of(topic);
      if (!topic.empty() && part.empty()) {
        std::fprintf(stderr, "glsurf: error: no command '%s' (see glsurf help)\n",
                     app::one_line(topic).c_str());
        return 2;
      }
      const int extra = argc > 2 && topic == argv[2] ? 3 : 4;  // argv's first word past the topic
      if (topic == "bench" && argc > 3) {
        std::fprintf(stderr, "glsurf: error: no benchmark '%s' (see glsurf help bench)\n",
                     app::one_line(argv[3]).c_str());
        return 2;
      }
      if (argc > extra) {
        std::fprintf(stderr, "glsurf: error: help takes one command, got '%s' too (see glsurf help)\n",
                     app::one_line(argv[extra]).c_str());
        return 2;
      }
      errno = 0;  // a failed write's reason, read at once below
      std::fputs(topic.empty() ? app::kUsage : ("usage: glsurf " + topic + " ...\n" + part).c_str(), stdout);
      if (std::ferror(stdout)) throw Error(write_failed("standard output", errno));
      status = 0;
    }
    if (status < 0) {
      std::fprintf(stderr, "glsurf: error: unknown command '%s' (see glsurf help)\n",
                   app::one_line(command).c_str());
      return 2;
    }
    // A report that never arrived (a full disk, a closed pipe) is a failure;
    // a command that failed has said why already. (Where an earlier write
    // failed, its reason is gone by now.)
    if (status == 0) flush_standard_output();
    return status;
  } catch (const app::UsageError& e) {
    std::fprintf(stderr, "glsurf: error: %s (see glsurf help)\n", app::one_line(e.what()).c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "glsurf: error: %s\n", app::one_line(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "glsurf: error: out of memory\n");
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {  // a name too long, a loop of links, ...
    if (e.path1().empty())
      std::fprintf(stderr, "glsurf: error: %s\n", app::one_line(e.what()).c_str());
    else
      std::fprintf(stderr, "glsurf: error: %s: %s\n", app::one_line(e.path1().string()).c_str(),
                   e.code().message().c_str());
    return 1;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "glsurf: internal error: %s\n", app::one_line(e.what()).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "glsurf: error: %s\n", app::one_line(e.what()).c_str());
    return 1;
  }
}
