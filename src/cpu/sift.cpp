// The CPU reference SIFT: docs/notes/sift.md, written out one rule at a time.
//
// Image arithmetic (scaling, doubling, blurs, DoG, derivatives, gradients,
// histograms, descriptor bins) is in float, as the GPU stages compute it.
// Double is used where the page says so or where a reference should not add
// rounding of its own: the kernel weights (stored as float), the sigmas of
// the scale space, the 3 x 3 solve of the refinement, the fitted value D^
// and the contrast test on it, a keypoint's sigma and size before they are
// stored as float, and the norms of a descriptor.
#include "cpu/sift.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <tuple>

#include "gl/error.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::cpu::sift {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Whole number nearest v, halves away from zero (std::lround), for the
// page's every "round".
int round_int(double v) { return static_cast<int>(std::lround(v)); }

// First and second derivatives of the DoG at sample (x, y) of layer i of
// octave k, by central differences (docs/notes/sift.md, Extrema).
struct Derivatives {
  float gx = 0, gy = 0, gs = 0;
  float dxx = 0, dyy = 0, dss = 0, dxy = 0, dxs = 0, dys = 0;
};

Derivatives derivatives(const Pyramid& p, int k, int i, int x, int y) {
  const Image& below = p.diff(k, i - 1);
  const Image& mid = p.diff(k, i);
  const Image& above = p.diff(k, i + 1);
  const float v = mid.at(x, y);
  Derivatives d;
  d.gx = (mid.at(x + 1, y) - mid.at(x - 1, y)) * 0.5f;
  d.gy = (mid.at(x, y + 1) - mid.at(x, y - 1)) * 0.5f;
  d.gs = (above.at(x, y) - below.at(x, y)) * 0.5f;
  d.dxx = mid.at(x + 1, y) + mid.at(x - 1, y) - 2.0f * v;
  d.dyy = mid.at(x, y + 1) + mid.at(x, y - 1) - 2.0f * v;
  d.dss = above.at(x, y) + below.at(x, y) - 2.0f * v;
  d.dxy = (mid.at(x + 1, y + 1) - mid.at(x - 1, y + 1) - mid.at(x + 1, y - 1) + mid.at(x - 1, y - 1)) * 0.25f;
  d.dxs = (above.at(x + 1, y) - above.at(x - 1, y) - below.at(x + 1, y) + below.at(x - 1, y)) * 0.25f;
  d.dys = (above.at(x, y + 1) - above.at(x, y - 1) - below.at(x, y + 1) + below.at(x, y - 1)) * 0.25f;
  return d;
}

// offset = -H^-1 g by Cramer's rule in double; false when det(H) is 0.
bool solve_offset(const Derivatives& d, double offset[3]) {
  const double h[3][3] = {{d.dxx, d.dxy, d.dxs}, {d.dxy, d.dyy, d.dys}, {d.dxs, d.dys, d.dss}};
  const double g[3] = {-static_cast<double>(d.gx), -static_cast<double>(d.gy), -static_cast<double>(d.gs)};
  auto det3 = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double det = det3(h);
  if (det == 0 || !std::isfinite(det)) return false;
  for (int c = 0; c < 3; ++c) {
    double m[3][3];
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 3; ++j) m[r][j] = j == c ? g[r] : h[r][j];
    offset[c] = det3(m) / det;
  }
  return std::isfinite(offset[0]) && std::isfinite(offset[1]) && std::isfinite(offset[2]);
}

// Whether sample (x, y) of a DoG layer is strictly above, or strictly below,
// all 26 neighbours in layers i - 1, i, i + 1.
bool is_extremum(const Pyramid& p, int k, int i, int x, int y) {
  const float v = p.diff(k, i).at(x, y);
  bool above_all = true, below_all = true;
  for (int l = i - 1; l <= i + 1 && (above_all || below_all); ++l) {
    const Image& d = p.diff(k, l);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (l == i && dx == 0 && dy == 0) continue;
        const float u = d.at(x + dx, y + dy);
        above_all = above_all && v > u;
        below_all = below_all && v < u;
      }
    }
  }
  return above_all || below_all;
}

// The refinement, contrast and edge tests of one candidate (docs/notes/sift.md,
// Extrema); false when it is dropped.
bool refine(const Pyramid& p, const SiftConfig& config, int k, int layer, int px, int py, Extremum& e) {
  const int s = config.n_octave_layers;
  const int w = p.octaves[k].width, h = p.octaves[k].height;
  Derivatives d;
  double offset[3] = {0, 0, 0};
  bool converged = false;
  for (int step = 0; step < kMaxRefineSteps; ++step) {
    d = derivatives(p, k, layer, px, py);
    if (!solve_offset(d, offset)) return false;
    if (std::abs(offset[0]) < 0.5 && std::abs(offset[1]) < 0.5 && std::abs(offset[2]) < 0.5) {
      converged = true;
      break;
    }
    // The move is checked in double before it becomes an int: a near-singular
    // H gives offsets far beyond any image.
    const double nx = px + std::round(offset[0]), ny = py + std::round(offset[1]);
    const double nl = layer + std::round(offset[2]);
    if (nx < kBorder || nx >= w - kBorder || ny < kBorder || ny >= h - kBorder || nl < 1 || nl > s)
      return false;
    px = static_cast<int>(nx);
    py = static_cast<int>(ny);
    layer = static_cast<int>(nl);
  }
  if (!converged) return false;

  const float v = p.diff(k, layer).at(px, py);
  const double fitted = v + 0.5 * (d.gx * offset[0] + d.gy * offset[1] + d.gs * offset[2]);
  if (std::abs(fitted) * s < config.contrast_threshold) return false;

  const float tr = d.dxx + d.dyy, det = d.dxx * d.dyy - d.dxy * d.dxy;
  const float r = config.edge_threshold;
  if (det <= 0 || tr * tr * r >= (r + 1) * (r + 1) * det) return false;

  const int o = p.octaves[k].octave;
  const float scale = std::ldexp(1.0f, o);
  const double sigma = config.sigma * std::pow(2.0, (layer + offset[2]) / s);
  e.k = k;
  e.layer = layer;
  e.px = px;
  e.py = py;
  e.x = static_cast<float>(px + offset[0]);
  e.y = static_cast<float>(py + offset[1]);
  e.scale_offset = static_cast<float>(offset[2]);
  e.sigma = static_cast<float>(sigma);
  e.value = static_cast<float>(fitted);
  KeyPoint& kp = e.keypoint;
  kp.x = e.x * scale;
  kp.y = e.y * scale;
  kp.size = 2.0f * e.sigma * scale;
  kp.angle = -1;
  kp.response = std::abs(e.value);
  kp.laplacian = (fitted > 0) - (fitted < 0);
  const int fraction = std::clamp(round_int((offset[2] + 0.5) * 255), 0, 255);
  kp.octave = (o & 255) | (layer << 8) | (fraction << 16);
  return true;
}

// The gradient of L at (x, y), y upwards: dx = L(x + 1) - L(x - 1),
// dy = L(y - 1) - L(y + 1).
void gradient(const Image& l, int x, int y, float& dx, float& dy) {
  dx = l.at(x + 1, y) - l.at(x - 1, y);
  dy = l.at(x, y - 1) - l.at(x, y + 1);
}

void check_image(const GrayImage& image) {
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
}

}  // namespace

bool valid_config(const SiftConfig& c) {
  return c.n_octaves >= 0 && c.n_octaves <= 32 && c.n_octave_layers >= 1 && c.n_octave_layers <= 64 &&
         c.contrast_threshold >= 0 && std::isfinite(c.contrast_threshold) && c.edge_threshold > 0 &&
         std::isfinite(c.edge_threshold) && c.sigma > 0 && c.sigma <= 64 &&
         (c.first_octave == -1 || c.first_octave == 0) && c.max_features >= 0;
}

std::vector<OctaveSize> octave_sizes(int width, int height, const SiftConfig& config) {
  GLSURF_EXPECTS(valid_config(config), "invalid SIFT configuration (cpu/sift.hpp: valid_config)");
  // The first octave's image: 2W x 2H when doubled.
  int w = config.first_octave < 0 ? 2 * width : width;
  int h = config.first_octave < 0 ? 2 * height : height;
  int count = config.n_octaves;
  if (count == 0) {
    const int side = std::min(w, h);
    count = side > 0 ? round_int(std::log2(static_cast<double>(side))) - 2 - config.first_octave : 0;
  }
  std::vector<OctaveSize> sizes;
  if (width <= 0 || height <= 0) return sizes;
  for (int k = 0; k < count; ++k) {
    sizes.push_back({config.first_octave + k, w, h});
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  return sizes;
}

double level_sigma(const SiftConfig& config, int level) {
  return config.sigma * std::pow(2.0, static_cast<double>(level) / config.n_octave_layers);
}

double increment_sigma(const SiftConfig& config, int level) {
  if (level == 0) {
    // OpenCV's floor of 0.1 pixel keeps the blur defined for sigma_0 at or
    // below the assumed blur.
    const double assumed = config.first_octave < 0 ? 1.0 : 0.5;
    const double s0 = config.sigma;
    return std::sqrt(std::max(s0 * s0 - assumed * assumed, 0.01));
  }
  const double a = level_sigma(config, level), b = level_sigma(config, level - 1);
  return std::sqrt(a * a - b * b);
}

std::vector<float> gaussian_kernel(double sigma) {
  GLSURF_EXPECTS(sigma > 0 && std::isfinite(sigma), "sigma must be positive");
  const int r = static_cast<int>(std::ceil(4 * sigma));
  std::vector<double> w(static_cast<size_t>(2 * r + 1));
  double sum = 0;
  for (int k = -r; k <= r; ++k) {
    w[static_cast<size_t>(k + r)] = std::exp(-static_cast<double>(k) * k / (2 * sigma * sigma));
    sum += w[static_cast<size_t>(k + r)];
  }
  std::vector<float> kernel(w.size());
  for (size_t i = 0; i < w.size(); ++i) kernel[i] = static_cast<float>(w[i] / sum);
  return kernel;
}

Image octave_base(const GrayImage& image, const SiftConfig& config) {
  GLSURF_EXPECTS(valid_config(config), "invalid SIFT configuration (cpu/sift.hpp: valid_config)");
  const int w = image.width, h = image.height;
  Image scaled(w, h);
  for (size_t i = 0; i < scaled.pixels.size(); ++i)
    scaled.pixels[i] = static_cast<float>(image.pixels[i]) / 255.0f;
  if (config.first_octave >= 0 || w == 0 || h == 0) return scaled;
  // Doubled along x, then along y: pixel 2i is pixel i, pixel 2i + 1 the mean
  // of pixels i and i + 1 (the last one replicated).
  Image wide(2 * w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const float a = scaled.at(x, y), b = scaled.at(std::min(x + 1, w - 1), y);
      wide.at(2 * x, y) = a;
      wide.at(2 * x + 1, y) = (a + b) * 0.5f;
    }
  }
  Image doubled(2 * w, 2 * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < 2 * w; ++x) {
      const float a = wide.at(x, y), b = wide.at(x, std::min(y + 1, h - 1));
      doubled.at(x, 2 * y) = a;
      doubled.at(x, 2 * y + 1) = (a + b) * 0.5f;
    }
  }
  return doubled;
}

Image blur(const Image& image, double sigma) {
  const std::vector<float> kernel = gaussian_kernel(sigma);
  const int r = static_cast<int>(kernel.size() / 2);
  const int w = image.width, h = image.height;
  if (w == 0 || h == 0) return image;
  // Rows: each row padded with r replicated pixels on either side.
  Image rows(w, h);
  std::vector<float> padded(static_cast<size_t>(w + 2 * r));
  for (int y = 0; y < h; ++y) {
    for (int i = 0; i < w + 2 * r; ++i)
      padded[static_cast<size_t>(i)] = image.at(std::clamp(i - r, 0, w - 1), y);
    for (int x = 0; x < w; ++x) {
      float sum = 0;
      for (int k = 0; k <= 2 * r; ++k)
        sum += kernel[static_cast<size_t>(k)] * padded[static_cast<size_t>(x + k)];
      rows.at(x, y) = sum;
    }
  }
  // Columns: whole rows at a time, each pixel's sum still from k = -r up.
  Image out(w, h);
  for (int y = 0; y < h; ++y) {
    float* dst = &out.at(0, y);
    for (int k = 0; k <= 2 * r; ++k) {
      const float* src = &rows.at(0, std::clamp(y + k - r, 0, h - 1));
      const float weight = kernel[static_cast<size_t>(k)];
      for (int x = 0; x < w; ++x) dst[x] += weight * src[x];
    }
  }
  return out;
}

Image downsample(const Image& image) {
  Image out((image.width + 1) / 2, (image.height + 1) / 2);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) out.at(x, y) = image.at(2 * x, 2 * y);
  return out;
}

Pyramid build_pyramid(const GrayImage& image, const SiftConfig& config) {
  check_image(image);
  Pyramid p;
  p.octaves = octave_sizes(image.width, image.height, config);
  p.levels = config.n_octave_layers + 3;
  const int s = config.n_octave_layers;
  for (size_t k = 0; k < p.octaves.size(); ++k) {
    Image first = k == 0 ? blur(octave_base(image, config), increment_sigma(config, 0))
                         : downsample(p.gauss(static_cast<int>(k) - 1, s));
    GLSURF_EXPECTS(first.width == p.octaves[k].width && first.height == p.octaves[k].height,
                   "octave size differs from octave_sizes");
    p.gaussian.push_back(std::move(first));
    for (int i = 1; i < p.levels; ++i)
      p.gaussian.push_back(blur(p.gaussian.back(), increment_sigma(config, i)));
    for (int i = 0; i + 1 < p.levels; ++i) {
      const Image& a = p.gauss(static_cast<int>(k), i);
      const Image& b = p.gauss(static_cast<int>(k), i + 1);
      Image d(a.width, a.height);
      for (size_t j = 0; j < d.pixels.size(); ++j) d.pixels[j] = b.pixels[j] - a.pixels[j];
      p.dog.push_back(std::move(d));
    }
  }
  return p;
}

std::vector<Extremum> find_extrema(const Pyramid& pyramid, const SiftConfig& config) {
  GLSURF_EXPECTS(valid_config(config), "invalid SIFT configuration (cpu/sift.hpp: valid_config)");
  GLSURF_EXPECTS(pyramid.levels == config.n_octave_layers + 3, "pyramid built with another n_octave_layers");
  const int s = config.n_octave_layers;
  const float threshold = static_cast<float>(0.5 * config.contrast_threshold / s);
  std::vector<Extremum> extrema;
  std::set<std::tuple<int, int, int, int>> found;  // (k, layer, px, py) after the refinement
  for (int k = 0; k < static_cast<int>(pyramid.octaves.size()); ++k) {
    const int w = pyramid.octaves[k].width, h = pyramid.octaves[k].height;
    for (int i = 1; i <= s; ++i) {
      const Image& d = pyramid.diff(k, i);
      for (int y = kBorder; y < h - kBorder; ++y) {
        for (int x = kBorder; x < w - kBorder; ++x) {
          if (!(std::abs(d.at(x, y)) > threshold) || !is_extremum(pyramid, k, i, x, y)) continue;
          Extremum e;
          if (!refine(pyramid, config, k, i, x, y, e)) continue;
          // Two candidates that refine to the same sample give the same
          // extremum (all of it is computed there): one is kept.
          if (!found.insert({e.k, e.layer, e.px, e.py}).second) continue;
          extrema.push_back(e);
        }
      }
    }
  }
  Features order;
  order.keypoints.reserve(extrema.size());
  for (const Extremum& e : extrema) order.keypoints.push_back(e.keypoint);
  const std::vector<int> was = sort_by_strength(order);
  std::vector<Extremum> sorted;
  sorted.reserve(extrema.size());
  for (int i : was) sorted.push_back(extrema[static_cast<size_t>(i)]);
  return sorted;
}

Extremum from_keypoint(const KeyPoint& keypoint, const Pyramid& pyramid, const SiftConfig& config) {
  const int packed = keypoint.octave;
  const int o = static_cast<signed char>(packed & 255);
  const int layer = (packed >> 8) & 255;
  const int fraction = (packed >> 16) & 255;
  const int k = pyramid.octaves.empty() ? -1 : o - pyramid.octaves.front().octave;
  if (k < 0 || k >= static_cast<int>(pyramid.octaves.size()) || layer >= pyramid.levels) {
    throw Error("keypoint at (" + std::to_string(keypoint.x) + ", " + std::to_string(keypoint.y) +
                ") has octave " + std::to_string(o) + ", layer " + std::to_string(layer) +
                ", not in this image's SIFT pyramid (" + std::to_string(pyramid.octaves.size()) +
                " octaves from " + std::to_string(config.first_octave) + ", layers 0.." +
                std::to_string(pyramid.levels - 1) + ")");
  }
  const float scale = std::ldexp(1.0f, -o);
  const OctaveSize& size = pyramid.octaves[static_cast<size_t>(k)];
  const float x = keypoint.x * scale, y = keypoint.y * scale, sigma = keypoint.size * 0.5f * scale;
  if (!(x >= -1 && x <= size.width && y >= -1 && y <= size.height && sigma > 0 && std::isfinite(sigma))) {
    throw Error("keypoint at (" + std::to_string(keypoint.x) + ", " + std::to_string(keypoint.y) +
                ") of size " + std::to_string(keypoint.size) + " lies outside the image or has no size");
  }
  Extremum e;
  e.k = k;
  e.layer = layer;
  e.x = x;
  e.y = y;
  e.px = round_int(e.x);
  e.py = round_int(e.y);
  e.scale_offset = fraction / 255.0f - 0.5f;
  e.sigma = sigma;
  e.value = keypoint.laplacian < 0 ? -keypoint.response : keypoint.response;
  e.keypoint = keypoint;
  return e;
}

std::vector<float> orientation_histogram(const Pyramid& pyramid, const Extremum& e) {
  const Image& l = pyramid.gauss(e.k, e.layer);
  const int n = kOrientationBins;
  const float sigma_w = 1.5f * e.sigma;
  // A radius beyond W + H takes every pixel of the image, as W + H does.
  const int radius = round_int(std::min(4.5f * e.sigma, static_cast<float>(l.width + l.height)));
  const int cx = round_int(e.x), cy = round_int(e.y);
  std::vector<float> raw(static_cast<size_t>(n), 0.0f);
  // Only pixels with 1 <= px <= W - 2, 1 <= py <= H - 2 count.
  for (int b = std::max(-radius, 1 - cy); b <= std::min(radius, l.height - 2 - cy); ++b) {
    const int py = cy + b;
    for (int a = std::max(-radius, 1 - cx); a <= std::min(radius, l.width - 2 - cx); ++a) {
      const int px = cx + a;
      float dx, dy;
      gradient(l, px, py, dx, dy);
      const float magnitude = std::sqrt(dx * dx + dy * dy);
      const float theta = std::atan2(dy, dx);
      const float u = static_cast<float>(px) - e.x, v = static_cast<float>(py) - e.y;
      const float weight = std::exp(-(u * u + v * v) / (2.0f * sigma_w * sigma_w));
      int bin = round_int(n * theta / static_cast<float>(2 * kPi)) % n;
      if (bin < 0) bin += n;
      raw[static_cast<size_t>(bin)] += weight * magnitude;
    }
  }
  std::vector<float> smooth(static_cast<size_t>(n));
  auto at = [&](int j) { return raw[static_cast<size_t>((j + n) % n)]; };
  for (int j = 0; j < n; ++j) {
    smooth[static_cast<size_t>(j)] =
        (at(j - 2) + at(j + 2)) / 16 + 4 * (at(j - 1) + at(j + 1)) / 16 + 6 * at(j) / 16;
  }
  return smooth;
}

std::vector<float> orientations(const Pyramid& pyramid, const Extremum& e) {
  const std::vector<float> h = orientation_histogram(pyramid, e);
  const int n = kOrientationBins;
  const float highest = *std::max_element(h.begin(), h.end());
  std::vector<int> peaks;
  for (int j = 0; j < n; ++j) {
    const float l = h[static_cast<size_t>((j + n - 1) % n)], c = h[static_cast<size_t>(j)];
    const float r = h[static_cast<size_t>((j + 1) % n)];
    if (c > l && c > r && c >= 0.8f * highest) peaks.push_back(j);
  }
  // Highest first; a stable sort keeps the lower bin first among equals.
  std::stable_sort(peaks.begin(), peaks.end(),
                   [&](int a, int b) { return h[static_cast<size_t>(a)] > h[static_cast<size_t>(b)]; });
  if (static_cast<int>(peaks.size()) > kMaxOrientations) peaks.resize(kMaxOrientations);
  std::vector<float> angles;
  for (int j : peaks) {
    const float l = h[static_cast<size_t>((j + n - 1) % n)], c = h[static_cast<size_t>(j)];
    const float r = h[static_cast<size_t>((j + 1) % n)];
    const float bin = static_cast<float>(j) + (l - r) / (2 * (l - 2 * c + r));
    float angle = bin * (360.0f / n);
    if (angle < 0) angle += 360.0f;
    if (angle >= 360.0f) angle -= 360.0f;
    angles.push_back(angle);
  }
  return angles;
}

void describe(const Pyramid& pyramid, const Extremum& e, float angle, bool root_sift, float* out) {
  const Image& l = pyramid.gauss(e.k, e.layer);
  constexpr int d = kDescriptorWidth, n = kDescriptorBins;
  const float theta = angle * static_cast<float>(kPi / 180);
  const float cos_t = std::cos(theta), sin_t = std::sin(theta);
  const float hist_width = 3.0f * e.sigma;
  const int diagonal =
      round_int(std::sqrt(static_cast<double>(l.width) * l.width + static_cast<double>(l.height) * l.height));
  // min(round(v), diagonal) = round(min(v, diagonal)), which cannot overflow.
  const int radius = round_int(
      std::min(hist_width * static_cast<float>(std::sqrt(2.0)) * (d + 1) / 2, static_cast<float>(diagonal)));
  const int cx = round_int(e.x), cy = round_int(e.y);
  std::array<float, kDescriptorSize> hist{};
  // Only pixels with 1 <= px <= W - 2, 1 <= py <= H - 2 count.
  for (int b = std::max(-radius, 1 - cy); b <= std::min(radius, l.height - 2 - cy); ++b) {
    const int py = cy + b;
    for (int a = std::max(-radius, 1 - cx); a <= std::min(radius, l.width - 2 - cx); ++a) {
      const int px = cx + a;
      const float u = static_cast<float>(px) - e.x, v = static_cast<float>(py) - e.y;
      const float c = (u * cos_t - v * sin_t) / hist_width, r = (u * sin_t + v * cos_t) / hist_width;
      const float cbin = c + d / 2 - 0.5f, rbin = r + d / 2 - 0.5f;
      if (!(rbin > -1 && rbin < d && cbin > -1 && cbin < d)) continue;
      float dx, dy;
      gradient(l, px, py, dx, dy);
      const float magnitude = std::sqrt(dx * dx + dy * dy);
      const float weight = std::exp(-(c * c + r * r) / (2.0f * (d / 2) * (d / 2)));
      float obin = (std::atan2(dy, dx) - theta) * n / static_cast<float>(2 * kPi);
      while (obin < 0) obin += n;
      while (obin >= n) obin -= n;
      const int r0 = static_cast<int>(std::floor(rbin)), c0 = static_cast<int>(std::floor(cbin));
      const int o0 = static_cast<int>(std::floor(obin));
      const float fr = rbin - r0, fc = cbin - c0, fo = obin - o0;
      const float value = weight * magnitude;
      for (int i = 0; i < 2; ++i) {
        const int row = r0 + i;
        if (row < 0 || row >= d) continue;
        for (int j = 0; j < 2; ++j) {
          const int col = c0 + j;
          if (col < 0 || col >= d) continue;
          for (int q = 0; q < 2; ++q) {
            const int o = (o0 + q) % n;
            hist[static_cast<size_t>((row * d + col) * n + o)] +=
                value * (i ? fr : 1 - fr) * (j ? fc : 1 - fc) * (q ? fo : 1 - fo);
          }
        }
      }
    }
  }
  normalise_descriptor(hist.data(), root_sift);
  std::copy(hist.begin(), hist.end(), out);
}

void normalise_descriptor(float* values, bool root_sift) {
  float* end = values + kDescriptorSize;
  auto normalise = [&]() {
    double sum = 0;
    for (const float* v = values; v != end; ++v) sum += static_cast<double>(*v) * *v;
    if (sum == 0) return;
    const double norm = std::sqrt(sum);
    for (float* v = values; v != end; ++v) *v = static_cast<float>(*v / norm);
  };
  normalise();
  for (float* v = values; v != end; ++v) *v = std::min(*v, 0.2f);
  normalise();
  if (root_sift) {
    double sum = 0;
    for (const float* v = values; v != end; ++v) sum += *v;
    if (sum == 0) return;
    for (float* v = values; v != end; ++v) *v = static_cast<float>(std::sqrt(*v / sum));
  }
}

std::vector<KeyPoint> detect(const GrayImage& image, const SiftConfig& config) {
  const Pyramid pyramid = build_pyramid(image, config);
  const std::vector<Extremum> extrema = find_extrema(pyramid, config);
  std::vector<KeyPoint> keypoints;
  keypoints.reserve(extrema.size());
  for (const Extremum& e : extrema) keypoints.push_back(e.keypoint);
  if (config.max_features > 0 && static_cast<int>(keypoints.size()) > config.max_features) {
    keypoints.resize(static_cast<size_t>(config.max_features));
  }
  return keypoints;
}

namespace {

// One entry per angle of an extremum, with its descriptor.
void add_entries(const Pyramid& pyramid, const Extremum& e, const std::vector<float>& angles, bool root_sift,
                 Features& f) {
  for (float angle : angles) {
    KeyPoint kp = e.keypoint;
    kp.angle = angle;
    f.keypoints.push_back(kp);
    f.descriptors.resize(f.descriptors.size() + kDescriptorSize);
    describe(pyramid, e, angle, root_sift, &f.descriptors[f.descriptors.size() - kDescriptorSize]);
  }
}

}  // namespace

Features detect_and_compute(const GrayImage& image, const SiftConfig& config) {
  const Pyramid pyramid = build_pyramid(image, config);
  std::vector<Extremum> extrema = find_extrema(pyramid, config);
  const size_t n = static_cast<size_t>(config.max_features);
  if (n > 0 && extrema.size() > n) {
    // The n strongest and every one as strong as the n-th.
    const float last = extrema[n - 1].keypoint.response;
    size_t keep = n;
    while (keep < extrema.size() && extrema[keep].keypoint.response >= last) ++keep;
    extrema.resize(keep);
  }
  Features f;
  f.descriptor_size = kDescriptorSize;
  for (const Extremum& e : extrema) add_entries(pyramid, e, orientations(pyramid, e), config.root_sift, f);
  sort_by_strength(f);
  if (n > 0 && f.keypoints.size() > n) {
    f.keypoints.resize(n);
    f.descriptors.resize(n * kDescriptorSize);
  }
  return f;
}

Features compute(const GrayImage& image, const std::vector<KeyPoint>& keypoints, const SiftConfig& config) {
  const Pyramid pyramid = build_pyramid(image, config);
  Features f;
  f.descriptor_size = kDescriptorSize;
  for (const KeyPoint& kp : keypoints) {
    const Extremum e = from_keypoint(kp, pyramid, config);
    add_entries(pyramid, e, kp.angle >= 0 ? std::vector<float>{kp.angle} : orientations(pyramid, e),
                config.root_sift, f);
  }
  return f;
}

void to_uint8(const float* descriptor, int n, unsigned char* out) {
  for (int i = 0; i < n; ++i) {
    const long v = std::lround(512.0f * descriptor[i]);
    out[i] = static_cast<unsigned char>(std::clamp(v, 0L, 255L));
  }
}

}  // namespace glsurf::cpu::sift
