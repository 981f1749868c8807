#include "cpu/detector.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gl/error.hpp"
#include "surf/memory.hpp"

namespace glsurf {

namespace {
bool stronger(const KeyPoint& a, const KeyPoint& b) {
  // A keypoint with a second orientation is two entries apart only by angle.
  return std::tie(b.response, a.y, a.x, a.size, a.angle) < std::tie(a.response, b.y, b.x, b.size, b.angle);
}
}  // namespace

void sort_by_strength(std::vector<KeyPoint>& keypoints) {
  std::sort(keypoints.begin(), keypoints.end(), stronger);
}

std::vector<int> sort_by_strength(Features& f) {
  std::vector<size_t> order(f.keypoints.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return stronger(f.keypoints[a], f.keypoints[b]); });
  Features sorted;
  sorted.descriptor_size = f.descriptor_size;
  sorted.type = f.type;
  sorted.keypoints.reserve(order.size());
  sorted.descriptors.reserve(f.descriptors.size());
  for (size_t i : order) {
    sorted.keypoints.push_back(f.keypoints[i]);
    if (f.descriptor_size > 0) {
      sorted.descriptors.insert(sorted.descriptors.end(), f.descriptor(i),
                                f.descriptor(i) + f.descriptor_size);
    }
  }
  f = std::move(sorted);
  return std::vector<int>(order.begin(), order.end());
}

}  // namespace glsurf

namespace glsurf::cpu {

namespace {

// Sum over [x0, x1) x [y0, y1) in pixels, exact as a signed 64-bit value.
long long box(const IntegralImage& s, int x0, int y0, int x1, int y1) {
  return static_cast<long long>(s.box_sum(x0, y0, x1, y1));
}

bool filter_fits(int centre, int filter, int extent) {
  return centre - filter / 2 >= 0 && centre + filter / 2 <= extent - 1;
}

}  // namespace

HessianResponse hessian_at(const IntegralImage& s, int x, int y, int filter) {
  const int l = filter / 3, c = filter / 2;
  // Dxx: three lobes side by side along x, each l wide and 2l - 1 tall.
  const long long xx = box(s, x - c, y - l + 1, x - c + l, y + l) -
                       2 * box(s, x - c + l, y - l + 1, x - c + 2 * l, y + l) +
                       box(s, x - c + 2 * l, y - l + 1, x + c + 1, y + l);
  const long long yy = box(s, x - l + 1, y - c, x + l, y - c + l) -
                       2 * box(s, x - l + 1, y - c + l, x + l, y - c + 2 * l) +
                       box(s, x - l + 1, y - c + 2 * l, x + l, y + c + 1);
  const long long xy = box(s, x - l, y - l, x, y) - box(s, x + 1, y - l, x + l + 1, y) -
                       box(s, x - l, y + 1, x, y + l + 1) + box(s, x + 1, y + 1, x + l + 1, y + l + 1);
  const float lobe_area = static_cast<float>(l * (2 * l - 1));
  const float square_area = static_cast<float>(l * l);
  return {static_cast<float>(xx) / lobe_area, static_cast<float>(yy) / lobe_area,
          static_cast<float>(xy) / square_area};
}

HessianLayer hessian_layer(const IntegralImage& integral, int filter, int step) {
  HessianLayer layer;
  layer.step = step;
  layer.filter = filter;
  layer.width = (integral.width - 1) / step + 1;
  layer.height = (integral.height - 1) / step + 1;
  const size_t n = static_cast<size_t>(layer.width) * layer.height;
  layer.det.assign(n, 0.0f);
  layer.trace.assign(n, 0.0f);
  layer.valid.assign(n, 0);
  for (int i = 0; i < layer.height; ++i) {
    const int y = i * step;
    if (!filter_fits(y, filter, integral.height)) continue;
    for (int j = 0; j < layer.width; ++j) {
      const int x = j * step;
      if (!filter_fits(x, filter, integral.width)) continue;
      const HessianResponse r = hessian_at(integral, x, y, filter);
      const size_t k = static_cast<size_t>(i) * layer.width + j;
      layer.det[k] = r.dxx * r.dyy - dxy_weight(filter / 3) * r.dxy * r.dxy;
      layer.trace[k] = r.dxx + r.dyy;
      layer.valid[k] = 1;
    }
  }
  return layer;
}

namespace {

// Solves A x = b for a symmetric 3x3 A by Cramer's rule; false if singular.
bool solve3(const double a[3][3], const double b[3], double x[3]) {
  auto det3 = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det3(a);
  if (std::abs(d) < 1e-12) return false;
  for (int k = 0; k < 3; ++k) {
    double m[3][3];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) m[r][c] = c == k ? b[r] : a[r][c];
    x[k] = det3(m) / d;
  }
  return true;
}

}  // namespace

double bytes_per_pixel(const DetectorConfig& config) {
  const double t = config.first_step;
  return 1 + 4 + 9.0 * (config.n_octave_layers + 2) / (t * t) + 2;
}

std::string host_memory_problem(int width, int height, const DetectorConfig& config, double available) {
  return memory_problem(width, height, bytes_per_pixel(config), available, "on the CPU backend");
}

std::vector<KeyPoint> detect(const GrayImage& image, const DetectorConfig& config, const TileCore& core) {
  GLSURF_EXPECTS(valid_config(config), "invalid detector configuration (keypoint.hpp: valid_config)");
  if (const std::string why = image_size_problem(image.width, image.height, config); !why.empty())
    throw Error(why);
  if (const std::string why = filter_sum_problem(image.width, image.height, config, kMaxExactLobe,
                                                 "the CPU reference", "use fewer --octaves or --layers");
      !why.empty()) {
    throw Error(why);
  }
  if (const std::string why = host_memory_problem(image.width, image.height, config, available_host_memory());
      !why.empty()) {
    throw Error(why);
  }
  const IntegralImage integral = integral_image(image);
  std::vector<KeyPoint> keypoints;
  const int layers = config.n_octave_layers + 2;

  for (int o = 0; o < config.n_octaves; ++o) {
    const int step = sample_step(o, config.first_step);
    std::vector<HessianLayer> h;
    for (int l = 0; l < layers; ++l) h.push_back(hessian_layer(integral, filter_size(o, l), step));

    for (int l = 1; l <= config.n_octave_layers; ++l) {
      const HessianLayer& below = h[l - 1];
      const HessianLayer& mid = h[l];
      const HessianLayer& above = h[l + 1];
      const int w = mid.width;
      for (int i = 1; i + 1 < mid.height; ++i) {
        for (int j = 1; j + 1 < w; ++j) {
          // The whole 3x3x3 block must be valid: the largest filter decides.
          if (!above.valid[static_cast<size_t>(i - 1) * w + j - 1] ||
              !above.valid[static_cast<size_t>(i + 1) * w + j + 1]) {
            continue;
          }
          const float v = mid.det_at(i, j);
          if (!(v > config.hessian_threshold)) continue;
          float n[3][3][3];  // [layer][dy][dx]
          bool is_max = true;
          for (int s = 0; s < 3 && is_max; ++s) {
            const HessianLayer& layer = s == 0 ? below : s == 1 ? mid : above;
            for (int dy = -1; dy <= 1 && is_max; ++dy) {
              for (int dx = -1; dx <= 1; ++dx) {
                const float u = layer.det_at(i + dy, j + dx);
                n[s][dy + 1][dx + 1] = u;
                if (!(s == 1 && dy == 0 && dx == 0) && !(v > u)) {
                  is_max = false;
                  break;
                }
              }
            }
          }
          if (!is_max) continue;

          // Brown & Lowe: fit a quadratic to the 3x3x3 block and move to its peak.
          const double g[3] = {-(n[1][1][2] - n[1][1][0]) / 2.0, -(n[1][2][1] - n[1][0][1]) / 2.0,
                               -(n[2][1][1] - n[0][1][1]) / 2.0};
          const double dxx = n[1][1][0] - 2.0 * v + n[1][1][2];
          const double dyy = n[1][0][1] - 2.0 * v + n[1][2][1];
          const double dss = n[0][1][1] - 2.0 * v + n[2][1][1];
          const double dxy = (n[1][2][2] - n[1][2][0] - n[1][0][2] + n[1][0][0]) / 4.0;
          const double dxs = (n[2][1][2] - n[2][1][0] - n[0][1][2] + n[0][1][0]) / 4.0;
          const double dys = (n[2][2][1] - n[2][0][1] - n[0][2][1] + n[0][0][1]) / 4.0;
          const double a[3][3] = {{dxx, dxy, dxs}, {dxy, dyy, dys}, {dxs, dys, dss}};
          double offset[3];
          if (!solve3(a, g, offset)) continue;
          if (std::abs(offset[0]) > kMaxInterpolationOffset ||
              std::abs(offset[1]) > kMaxInterpolationOffset ||
              std::abs(offset[2]) > kMaxInterpolationOffset) {
            continue;
          }
          if (!in_core(core, step, j, i, offset[0], offset[1])) continue;

          KeyPoint k;
          k.x = static_cast<float>((j + offset[0]) * step);
          k.y = static_cast<float>((i + offset[1]) * step);
          k.size = static_cast<float>(mid.filter + offset[2] * (mid.filter - below.filter));
          k.response = v;
          k.octave = o;
          k.laplacian = mid.trace[static_cast<size_t>(i) * w + j] >= 0 ? 1 : -1;
          keypoints.push_back(k);
        }
      }
    }
  }
  sort_by_strength(keypoints);
  if (config.max_features > 0 && static_cast<int>(keypoints.size()) > config.max_features) {
    keypoints.resize(static_cast<size_t>(config.max_features));
  }
  return keypoints;
}

}  // namespace glsurf::cpu
