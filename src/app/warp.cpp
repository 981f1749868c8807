// glsurf warp — synthetic sequences in the Oxford format with exact
// homographies, for eval to score.
#include "io/warp.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include "app/cli.hpp"
#include "app/staged_directory.hpp"
#include "glsurf/geometry.hpp"
#include "io/draw.hpp"
#include "io/image.hpp"
#include "io/output.hpp"

namespace glsurf::app {

namespace {

std::vector<double> number_list(Args& args, const std::string& name) {
  const std::string text = args.option(name);
  std::vector<double> values;
  if (text.empty()) return values;
  if (text.back() == ',') throw UsageError(name + " wants numbers separated by commas, got '" + text + "'");
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    // Decimal only: strtod would also read hexadecimal ("0x10" as 16). Not
    // std::stod, which calls a subnormal result (1e-320) out of range.
    const bool decimal = !item.empty() && item.find_first_of("xX") == std::string::npos;
    char* end = nullptr;
    errno = 0;
    const double value = decimal ? std::strtod(item.c_str(), &end) : 0.0;
    if (!decimal || end != item.c_str() + item.size() || !std::isfinite(value)) {
      throw UsageError(name + " wants numbers separated by commas, got '" + item + "'");
    }
    if (errno == ERANGE && value == 0.0) {
      throw UsageError(name + ": '" + item + "' is too small to represent (it would be 0)");
    }
    values.push_back(value);
  }
  return values;
}

void require(const std::vector<double>& values, const std::string& name, bool (*ok)(double),
             const char* what) {
  for (double v : values)
    if (!ok(v)) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", v);
      throw UsageError(name + " wants " + what + ", got " + value);
    }
}

// The command line: the lists of values (one image per value), the image
// and OUTDIR.
struct WarpRequest {
  std::vector<double> rotate, scale, perspective, blur, brightness, noise;
  size_t steps = 0;  // the lists' length
  LoadOptions load;
  std::string image, out;
};

WarpRequest read_request(Args& args) {
  WarpRequest r;
  r.rotate = number_list(args, "--rotate");
  r.scale = number_list(args, "--scale");
  r.perspective = number_list(args, "--perspective");
  r.blur = number_list(args, "--blur");
  r.brightness = number_list(args, "--brightness");
  r.noise = number_list(args, "--noise");
  r.load = load_options(args);
  const std::vector<std::string> positional = args.positionals();
  args.finish();
  if (positional.size() != 2) throw UsageError("warp needs IMAGE OUTDIR");
  r.image = input_path(positional[0]);
  r.out = positional[1];
  require(
      r.scale, "--scale", [](double v) { return v > 0; }, "positive numbers");
  require(
      r.blur, "--blur", [](double v) { return v >= 0; }, "numbers >= 0");
  require(
      r.noise, "--noise", [](double v) { return v >= 0; }, "numbers >= 0");
  std::string first;  // the first list given, for the error
  const std::pair<const char*, const std::vector<double>*> lists[] = {
      {"--rotate", &r.rotate}, {"--scale", &r.scale},           {"--perspective", &r.perspective},
      {"--blur", &r.blur},     {"--brightness", &r.brightness}, {"--noise", &r.noise}};
  for (const auto& [name, list] : lists) {
    if (list->empty()) continue;
    if (r.steps != 0 && list->size() != r.steps) {
      throw UsageError("all warp lists must have the same length (" + first + " has " +
                       std::to_string(r.steps) + " values, " + name + " " + std::to_string(list->size()) +
                       ")");
    }
    if (r.steps == 0) first = name;
    r.steps = list->size();
  }
  if (r.steps == 0)
    throw UsageError("warp needs at least one of --rotate --scale --perspective --blur --brightness --noise");
  return r;
}

// Every transform, checked before anything is written: geometry about the
// centre, scale and rotation (counter-clockwise on screen), then a
// horizontal perspective tilt.
std::vector<Homography> transforms(const WarpRequest& r, const GrayImage& image) {
  const double cx = (image.width - 1) / 2.0, cy = (image.height - 1) / 2.0;
  std::vector<Homography> out;
  for (size_t k = 0; k < r.steps; ++k) {
    // (fmod first: 1e308 degrees times pi would overflow to infinity.)
    const double a = (r.rotate.empty() ? 0 : std::fmod(r.rotate[k], 360.0)) * 3.14159265358979323846 / 180.0;
    const double s = r.scale.empty() ? 1.0 : r.scale[k];
    const double p = r.perspective.empty() ? 0.0 : r.perspective[k] / image.width;
    const Homography to_centre = {1, 0, -cx, 0, 1, -cy, 0, 0, 1}, back = {1, 0, cx, 0, 1, cy, 0, 0, 1};
    const Homography core = {
        s * std::cos(a), s * std::sin(a), 0, -s * std::sin(a), s * std::cos(a), 0, p, 0, 1};
    Homography h = multiply(back, multiply(core, to_centre));
    // Past the horizon, points would come back mirrored from the far side
    // (only a tilt moves it: p = 0 leaves w = 1). Checked before the
    // normalisation below, which a horizon through the centre defeats.
    if (horizon_crosses(h, image.width, image.height)) {
      char tilt[32];
      std::snprintf(tilt, sizeof tilt, "%g", r.perspective[k]);
      throw UsageError("warp " + std::to_string(k + 1) + ": --perspective " + tilt +
                       " puts the horizon across the image (a smaller tilt keeps it outside)");
    }
    for (double& v : h) v /= h[8];
    if (is_singular(h)) throw UsageError("warp " + std::to_string(k + 1) + ": the transform is singular");
    out.push_back(h);
  }
  return out;
}

// A separable Gaussian blur of `warped` (the image's size), edges clamped.
void blur_image(std::vector<double>& warped, const GrayImage& image, double sigma) {
  if (sigma <= 0) return;
  // Wider than the image changes nothing (edges are clamped). The
  // exponent is formed as (i / sigma)^2: 2 sigma^2 underflows to 0 for
  // a sigma near 1e-163, and 0 / 0 at the centre made the image black.
  const int radius = static_cast<int>(
      std::min(std::ceil(3 * sigma), static_cast<double>(std::max(image.width, image.height))));
  std::vector<double> kernel(static_cast<size_t>(2 * radius + 1));
  double total = 0;
  for (int i = -radius; i <= radius; ++i)
    total += kernel[static_cast<size_t>(i + radius)] = std::exp(-0.5 * (i / sigma) * (i / sigma));
  for (double& w : kernel) w /= total;
  std::vector<double> tmp(warped.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        double sum = 0;
        for (int i = -radius; i <= radius; ++i) {
          const int xx = pass == 0 ? std::clamp(x + i, 0, image.width - 1) : x;
          const int yy = pass == 1 ? std::clamp(y + i, 0, image.height - 1) : y;
          sum += kernel[static_cast<size_t>(i + radius)] * warped[static_cast<size_t>(yy) * image.width + xx];
        }
        tmp[static_cast<size_t>(y) * image.width + x] = sum;
      }
    warped.swap(tmp);
  }
}

// Image k + 2 of the sequence: image 1 warped by `h` (windowed-sinc
// resampling, io/warp.hpp; zero outside), then the photometry: Gaussian
// blur, brightness offset, Gaussian noise.
GrayImage synthesize(const WarpRequest& r, size_t k, const GrayImage& image, const Homography& h,
                     std::mt19937& rng) {
  std::vector<double> warped = warp_image(image, h, image.width, image.height);
  if (!r.blur.empty()) blur_image(warped, image, r.blur[k]);
  std::normal_distribution<double> gauss(0.0, r.noise.empty() ? 0.0 : r.noise[k]);
  GrayImage result(image.width, image.height);
  for (size_t i = 0; i < warped.size(); ++i) {
    double v = warped[i] + (r.brightness.empty() ? 0.0 : r.brightness[k]);
    if (!r.noise.empty() && r.noise[k] > 0) v += gauss(rng);
    result.pixels[i] = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
  }
  return result;
}

int warp(Args& args) {
  const WarpRequest r = read_request(args);
  const GrayImage image = load_gray(r.image, r.load);
  const std::vector<Homography> hs = transforms(r, image);
  StagedDirectory dir(r.out);
  const auto write_image = [&](const std::string& name, const GrayImage& picture) {
    dir.write(name, [&](const std::string& path) {
      write_png(path, picture.width, picture.height, 1, picture.pixels.data());
    });
  };
  write_image("img1.png", image);
  std::mt19937 rng(12345);
  for (size_t k = 0; k < r.steps; ++k) {
    const std::string n = std::to_string(k + 2);
    write_image("img" + n + ".png", synthesize(r, k, image, hs[k], rng));
    dir.write("H1to" + n + "p", [&](const std::string& path) { write_homography_file(path, hs[k]); });
  }
  // The report first: one that cannot be written fails the run, and a failed
  // run leaves no sequence behind.
  if (r.steps == 1) {
    std::printf("%s: img1, img2 with H1to2p\n", r.out.c_str());
  } else {
    std::printf("%s: img1..img%zu with H1to2p..H1to%zup\n", r.out.c_str(), r.steps + 1, r.steps + 1);
  }
  flush_standard_output();
  dir.commit();
  return 0;
}

OptionTable warp_options() {
  return {text("--rotate", "A,...", "", "rotations in degrees, counter-clockwise on screen, about the centre",
               "none"),
          text("--scale", "S,...", "", "scale factors about the centre", "none"),
          text("--perspective", "P,...", "", "horizontal tilts: the projective term P / width", "none"),
          text("--blur", "SIGMA,...", "", "Gaussian blurs, sigma in pixels", "none"),
          text("--brightness", "B,...", "", "grey levels added", "none"),
          text("--noise", "SIGMA,...", "", "Gaussian noise, sigma in grey levels (fixed seed)", "none"),
          shared_option("--ignore-orientation")};
}

}  // namespace

Command warp_command() {
  return {"warp",
          "IMAGE OUTDIR",
          "a synthetic sequence img1..imgN, H1to2p..H1toNp (Oxford format) for eval",
          "OUTDIR must be new or empty; IMAGE may be - (piped in). The lists have one value per image "
          "after img1, and equal lengths; a list not given changes nothing. Written completely or not at "
          "all.",
          warp_options,
          warp,
          "warp assets/graf1.png seq --rotate 10,20,30 --scale 1,1.1,1.2",
          {}};
}

}  // namespace glsurf::app
