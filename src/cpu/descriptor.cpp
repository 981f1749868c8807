#include "cpu/descriptor.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cpu/detector.hpp"
#include "gl/error.hpp"

namespace glsurf::cpu {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Mean over pixels [x0, x1) x [y0, y1) clipped to the image; `inside` says
// whether any pixel is left.
double clipped_mean(const IntegralImage& s, int x0, int y0, int x1, int y1, bool& inside) {
  x0 = std::clamp(x0, 0, s.width);
  x1 = std::clamp(x1, 0, s.width);
  y0 = std::clamp(y0, 0, s.height);
  y1 = std::clamp(y1, 0, s.height);
  inside = x1 > x0 && y1 > y0;
  if (!inside) return 0.0;
  return static_cast<double>(s.box_sum(x0, y0, x1, y1)) / (static_cast<double>(x1 - x0) * (y1 - y0));
}

// Mean of the image over a w x h box whose top-left corner sits at real
// pixel-edge coordinates e: bilinear interpolation between the four
// pixel-aligned boxes around it, which for a piecewise-constant image is the
// exact area mean. Aligned boxes are clipped to the image; those wholly
// outside are left out (and the weights renormalised). The means are
// weighted about the first one left in, so that where all are equal (a flat
// patch) the result is exactly that mean: differences of box means with
// different fractions are then exactly 0, not rounding noise that gives a
// flat patch an orientation (the shaders do the same).
double box_mean(const IntegralImage& s, double ex, double ey, int w, int h, bool& inside) {
  const int i0 = static_cast<int>(std::floor(ex)), j0 = static_cast<int>(std::floor(ey));
  const double a = ex - i0, b = ey - j0;
  double sum = 0, weights = 0, first = 0;
  for (int q = 0; q < 2; ++q) {
    for (int p = 0; p < 2; ++p) {
      const double weight = (p ? a : 1 - a) * (q ? b : 1 - b);
      bool in = false;
      const double m = clipped_mean(s, i0 + p, j0 + q, i0 + p + w, j0 + q + h, in);
      if (in && weight > 0) {
        if (weights == 0) first = m;
        sum += weight * (m - first);
        weights += weight;
      }
    }
  }
  inside = weights > 0;
  return inside ? first + sum / weights : 0.0;
}

// Haar responses of side h (even) centred on the real point (px, py): the box
// covers [p - h/2, p + h/2) (pixel centres at integers); dx = mean of its right
// half - mean of its left half, dy = bottom - top. Sampled at sub-pixel
// positions (box_mean), so the responses vary continuously with the point.
// A half wholly outside the image makes that response 0.
void haar(const IntegralImage& s, double px, double py, int h, double& dx, double& dy) {
  const double ex = px - h / 2.0 + 0.5, ey = py - h / 2.0 + 0.5;  // pixel-edge coordinates
  const int half = h / 2;
  bool in_a = false, in_b = false;
  const double right = box_mean(s, ex + half, ey, half, h, in_a);
  const double left = box_mean(s, ex, ey, half, h, in_b);
  dx = in_a && in_b ? right - left : 0.0;
  const double bottom = box_mean(s, ex, ey + half, h, half, in_a);
  const double top = box_mean(s, ex, ey, h, half, in_b);
  dy = in_a && in_b ? bottom - top : 0.0;
}

int even_side(double length) { return std::max(2, 2 * static_cast<int>(std::floor(length / 2.0 + 0.5))); }
int nearest_side(double length) { return std::max(2, static_cast<int>(std::floor(length + 0.5))); }

// The whole number nearest h sqrt(k) / 2, for k not a square (no ties):
// (q + 1) / 2 with q = floor(h sqrt(k)), in integers, as the shaders.
int nearest_root_half(int h, int k) {
  const long long n = static_cast<long long>(k) * h * h;
  long long q = static_cast<long long>(std::sqrt(static_cast<double>(n)));
  while (q * q > n) --q;
  while ((q + 1) * (q + 1) <= n) ++q;
  return static_cast<int>((q + 1) / 2);
}

// The gradient of the image smoothed by a w x h box, by central differences
// of box means d (kOrientationOffset s) either side of the real point
// (px, py). A box wholly outside the image makes that component 0.
void box_gradient(const IntegralImage& s, double px, double py, int w, int h, double d, double& gx,
                  double& gy) {
  const double ex = px - w / 2.0 + 0.5, ey = py - h / 2.0 + 0.5;  // pixel-edge coordinates
  bool in_a = false, in_b = false;
  const double right = box_mean(s, ex + d, ey, w, h, in_a);
  const double left = box_mean(s, ex - d, ey, w, h, in_b);
  gx = in_a && in_b ? right - left : 0.0;
  const double below = box_mean(s, ex, ey + d, w, h, in_a);
  const double above = box_mean(s, ex, ey - d, w, h, in_b);
  gy = in_a && in_b ? below - above : 0.0;
}

// The gradient of the image smoothed by the cross (orientation_cross): the
// mean of the two boxes' gradients. Unlike a Haar pair (whose dx smooths
// with a tent across x and a box along y, and dy the other way round), both
// components differentiate the same smoothed image, so for a straight edge
// the direction errs only through the finite offset d and the rasterisation
// (tests/test_cpu_descriptor.cpp).
void cross_gradient(const IntegralImage& s, double px, double py, const OrientationCross& cross, double d,
                    double& gx, double& gy) {
  double wide_x = 0, wide_y = 0, tall_x = 0, tall_y = 0;
  box_gradient(s, px, py, cross.long_side, cross.short_side, d, wide_x, wide_y);
  box_gradient(s, px, py, cross.short_side, cross.long_side, d, tall_x, tall_y);
  gx = 0.5 * (wide_x + tall_x);
  gy = 0.5 * (wide_y + tall_y);
}

struct Sample {
  double x, y;    // Gaussian-weighted gradient
  double ux, uy;  // its direction (0, 0 for a zero vector)
};

// The window sum around the unit direction (cx, cy): each sample weighted by
// max(0, 2 cos(delta) - 1)^2, delta its angle to the direction.
void window_sum(const std::vector<Sample>& samples, double cx, double cy, double& sx, double& sy) {
  sx = sy = 0;
  for (const Sample& p : samples) {
    const double w = std::max(0.0, 2.0 * (p.ux * cx + p.uy * cy) - 1.0);
    sx += w * w * p.x;
    sy += w * w * p.y;
  }
}

// Recentres the window on its own sum, from the unit direction (cx, cy):
// each step points the window along its last sum, and every second step
// goes instead to the fixed point that Aitken's delta-squared extrapolation
// predicts from the last two moves if that lies within kOrientationLeap, or
// kOrientationLeap towards it when it lies farther ahead (moves shrinking
// in one direction: a flat peak, climbed slowly). On graf1 that halves the
// most sums any 8 neighbouring keypoints need (the GPU runs 8 or more
// keypoints as one SIMD group), and ends nearer the fixed point than plain
// recentring. The step towards a farther point keeps float32 and float64
// on one path where the predicted leap is close to the limit (a leap taken
// on one and refused on the other left 0.8 degrees between them after the
// last sum). Stops when a
// sum's direction moves by less than kOrientationSettled or after
// kOrientationMaxSums sums; returns the last sum.
void refine(const std::vector<Sample>& samples, double cx, double cy, double& sx, double& sy) {
  double angle = std::atan2(cy, cx), previous_move = 0;
  for (int sum = 0; sum < kOrientationMaxSums; ++sum) {
    window_sum(samples, std::cos(angle), std::sin(angle), sx, sy);
    if (sx == 0 && sy == 0) return;
    const double next = std::atan2(sy, sx);
    const double move = std::remainder(next - angle, 2 * kPi);
    if (std::abs(move) < kOrientationSettled) return;
    angle = next;
    // Aitken's leap -move^2 / change where it is within kOrientationLeap
    // (tested without dividing, as the shader); else, while the moves keep
    // one direction, kOrientationLeap on. That test reads the moves' signs,
    // not the sign of their difference, which on a flat peak (moves of
    // 0.0105 degrees for 20 sums) is rounding noise that float32 and
    // float64 read differently.
    const double change = move - previous_move;
    if (sum % 2 == 1) {
      if (move * move < kOrientationLeap * std::abs(change)) {
        angle -= move * move / change;
      } else if (move * previous_move > 0) {
        angle += std::copysign(kOrientationLeap, move);
      }
    }
    previous_move = move;
  }
}

// An image-frame direction (radians, y down) as KeyPoint::angle: degrees
// counter-clockwise on screen, [0, 360).
float screen_degrees(double direction) {
  double degrees = std::fmod(-direction * 180.0 / kPi, 360.0);
  if (degrees <= 0) degrees += 360.0;  // also -0 (direction +0), which printed as "-0"
  // Checked after rounding to float: a double just below 360 rounds up to it.
  const float angle = static_cast<float>(degrees);
  return angle >= 360.0f ? 0.0f : angle;
}

// The second orientation (Orientation::second_angle): the largest local
// maximum of the candidates' |sum| other than the best candidate (the first
// on ties), if at least `ratio` times the best's |sum|, recentred as the
// first; kept when it settles more than kSecondSeparation from the first
// orientation's image-frame `direction`. Returns -1 otherwise.
float second_orientation(const std::vector<Sample>& samples, const std::vector<double>& x,
                         const std::vector<double>& y, double direction, double ratio) {
  const int n = static_cast<int>(x.size());
  const auto magnitude = [&](int c) {
    c = (c + n) % n;
    return x[static_cast<size_t>(c)] * x[static_cast<size_t>(c)] +
           y[static_cast<size_t>(c)] * y[static_cast<size_t>(c)];
  };
  int best = 0, seed = -1;
  for (int c = 1; c < n; ++c) best = magnitude(c) > magnitude(best) ? c : best;
  for (int c = 0; c < n; ++c) {
    const double m = magnitude(c);
    if (c != best && m > magnitude(c - 1) && m >= magnitude(c + 1) && (seed < 0 || m > magnitude(seed)))
      seed = c;
  }
  // Compared squared, as the shader: |seed| >= ratio |best|.
  if (seed < 0 || magnitude(seed) < ratio * ratio * magnitude(best)) return -1.0f;
  const double m = std::sqrt(magnitude(seed));
  double sx = 0, sy = 0;
  refine(samples, x[static_cast<size_t>(seed)] / m, y[static_cast<size_t>(seed)] / m, sx, sy);
  if (sx == 0 && sy == 0) return -1.0f;  // no direction to give
  const double second = std::atan2(sy, sx);
  if (std::abs(std::remainder(second - direction, 2 * kPi)) <= kSecondSeparation * kPi / 180.0) return -1.0f;
  return screen_degrees(second);
}

}  // namespace

OrientationCross orientation_cross(double s) {
  const int h = nearest_side(2 * s);
  return {nearest_root_half(h, 6), nearest_root_half(h, 2)};
}

bool orientation_inside(const KeyPoint& k, int width, int height) {
  const double s = 1.2 * k.size / 9.0;
  const int h = orientation_cross(s).long_side;
  // A box mean at centre c takes the aligned boxes at whole corners o and
  // o + 1, o = floor(c - h / 2 + 0.5), in integral coordinates o .. o + h + 1,
  // which must lie in 0 .. width (height); h is the cross's longest side, on
  // either axis. The centres lie within `reach` of the keypoint on each axis.
  const double reach = kOrientationReach * s;
  const double spare = 2.0;  // the GPU's float32 positions and scale (a side one larger)
  const auto fits = [&](double centre, int extent) {
    return centre - reach - 0.5 * h + 0.5 >= spare && centre + reach + 0.5 * h + 1.5 <= extent - spare;
  };
  return fits(k.x, width) && fits(k.y, height);
}

Orientation orientation(const IntegralImage& integral, const KeyPoint& k, bool find_runner_up,
                        double second_ratio) {
  const double s = 1.2 * k.size / 9.0;
  const OrientationCross cross = orientation_cross(s);
  std::vector<Sample> samples;
  samples.reserve(kOrientationLattice.size());
  for (const LatticePoint& p : kOrientationLattice) {
    double gx = 0, gy = 0;
    cross_gradient(integral, k.x + p.i * kOrientationStep * s, k.y + p.j * kOrientationStep * s, cross,
                   kOrientationOffset * s, gx, gy);
    const double g = orientation_weight(p);
    const double n = std::hypot(gx, gy);
    samples.push_back({g * gx, g * gy, n > 0 ? gx / n : 0.0, n > 0 ? gy / n : 0.0});
  }
  // Candidate windows every 2 pi / candidates; the largest sum (the first
  // on ties) is refined.
  const int candidates = orientation_candidates(second_ratio);
  double best = -1, best_x = 0, best_y = 0;
  std::vector<double> candidate_x(candidates), candidate_y(candidates);
  for (int c = 0; c < candidates; ++c) {
    const double phi = 2 * kPi * c / candidates;
    window_sum(samples, std::cos(phi), std::sin(phi), candidate_x[c], candidate_y[c]);
    const double m = candidate_x[c] * candidate_x[c] + candidate_y[c] * candidate_y[c];
    if (m > best) {
      best = m;
      best_x = candidate_x[c];
      best_y = candidate_y[c];
    }
  }
  Orientation o;
  o.strength = static_cast<float>(std::sqrt(std::max(best, 0.0)));
  const double n = std::hypot(best_x, best_y);
  if (n == 0) {
    o.angle = 0;  // no gradient at all
    return o;
  }
  double sx = 0, sy = 0;
  refine(samples, best_x / n, best_y / n, sx, sy);
  const double direction = std::atan2(sy, sx);  // image frame, y down
  if (second_ratio > 0)
    o.second_angle = second_orientation(samples, candidate_x, candidate_y, direction, second_ratio);
  // Runner-up: the best candidate whose refinement ends elsewhere (another
  // peak of the window sum, or one the refinement has not settled on within
  // kOrientationMaxSums), the one a float32 evaluation could prefer.
  for (int c = 0; c < candidates && find_runner_up; ++c) {
    const double m = std::hypot(candidate_x[c], candidate_y[c]);
    if (m == 0 || m <= o.runner_up) continue;
    double cx = 0, cy = 0;
    refine(samples, candidate_x[c] / m, candidate_y[c] / m, cx, cy);
    if (std::abs(std::remainder(std::atan2(cy, cx) - direction, 2 * kPi)) > 0.5 * kPi / 180.0) {
      o.runner_up = static_cast<float>(m);
    }
  }
  o.angle = screen_degrees(direction);
  return o;
}

void describe(const IntegralImage& integral, const KeyPoint& k, float angle_degrees, bool extended,
              float* out) {
  const double s = 1.2 * k.size / 9.0;
  const int h = even_side(kDescriptorHaar * s);
  const double theta = -angle_degrees * kPi / 180.0;  // image frame
  const double c = std::cos(theta), sn = std::sin(theta);
  const double sigma = kDescriptorSigma * s;
  const int per_region = extended ? 8 : 4;
  std::vector<double> v(16 * per_region, 0.0);
  for (int row = 0; row < 20; ++row) {
    for (int col = 0; col < 20; ++col) {
      const double ox = (col - 9.5) * s, oy = (row - 9.5) * s;
      const double px = k.x + c * ox - sn * oy, py = k.y + sn * ox + c * oy;
      double dx = 0, dy = 0;
      haar(integral, px, py, h, dx, dy);
      const double w = std::exp(-(ox * ox + oy * oy) / (2 * sigma * sigma));
      const double rx = w * (c * dx + sn * dy), ry = w * (-sn * dx + c * dy);
      double* r = &v[static_cast<size_t>((row / 5) * 4 + col / 5) * per_region];
      if (!extended) {
        r[0] += rx;
        r[1] += ry;
        r[2] += std::abs(rx);
        r[3] += std::abs(ry);
      } else {
        double* by_dy = ry >= -kSplitTolerance * std::abs(rx) ? r : r + 2;
        by_dy[0] += rx;
        by_dy[1] += std::abs(rx);
        double* by_dx = rx >= -kSplitTolerance * std::abs(ry) ? r + 4 : r + 6;
        by_dx[0] += ry;
        by_dx[1] += std::abs(ry);
      }
    }
  }
  double norm = 0;
  for (double x : v) norm += x * x;
  norm = std::sqrt(norm);
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(norm > 0 ? v[i] / norm : 0.0);
}

std::vector<float> describe_all(const IntegralImage& integral, std::vector<KeyPoint>& keypoints,
                                const DetectorConfig& config, Angles angles) {
  const int d = descriptor_size(config);
  std::vector<float> out(keypoints.size() * static_cast<size_t>(d));
  for (size_t i = 0; i < keypoints.size(); ++i) {
    KeyPoint& k = keypoints[i];
    // With second orientations configured, the first is sought among as
    // many candidates as detection's (orientation_candidates), as on the GPU.
    if (angles == Angles::Compute) {
      k.angle = config.upright ? 0.0f : orientation(integral, k, false, config.second_orientation).angle;
    }
    describe(integral, k, k.angle, config.extended, &out[i * static_cast<size_t>(d)]);
  }
  return out;
}

Features detect_and_compute(const GrayImage& image, const DetectorConfig& config, const TileCore& core) {
  Features f;
  f.keypoints = detect(image, config, core);
  f.descriptor_size = descriptor_size(config);
  const IntegralImage integral = integral_image(image);
  if (config.upright || config.second_orientation <= 0) {
    f.descriptors = describe_all(integral, f.keypoints, config);
    return f;
  }
  // A keypoint with a second orientation becomes two; sorted again (the
  // pair apart only by angle) and held to max_features, as on the GPU.
  std::vector<KeyPoint> oriented;
  oriented.reserve(f.keypoints.size());
  for (KeyPoint k : f.keypoints) {
    const Orientation o = orientation(integral, k, false, config.second_orientation);
    k.angle = o.angle;
    oriented.push_back(k);
    if (o.second_angle >= 0) {
      k.angle = o.second_angle;
      oriented.push_back(k);
    }
  }
  sort_by_strength(oriented);
  if (config.max_features > 0 && oriented.size() > static_cast<size_t>(config.max_features)) {
    oriented.resize(static_cast<size_t>(config.max_features));
  }
  f.keypoints = std::move(oriented);
  f.descriptors.resize(f.keypoints.size() * static_cast<size_t>(f.descriptor_size));
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    describe(integral, f.keypoints[i], f.keypoints[i].angle, config.extended,
             &f.descriptors[i * static_cast<size_t>(f.descriptor_size)]);
  }
  return f;
}

std::string keypoint_problem(const KeyPoint& k, int width, int height, Angles angles) {
  std::ostringstream why;
  if (!std::isfinite(k.x) || !std::isfinite(k.y) || !std::isfinite(k.size)) {
    why << "x, y and size must be finite numbers";
  } else if (k.x < -0.5f || k.x > width - 0.5f || k.y < -0.5f || k.y > height - 0.5f) {
    why << "(" << k.x << ", " << k.y << ") is outside the " << width << " x " << height
        << " image (x from -0.5 to " << width - 0.5 << ", y from -0.5 to " << height - 0.5 << ")";
  } else if (!(k.size >= kMinKeypointSize) || k.size > kMaxKeypointSize) {
    why << "size " << k.size << " is not in [" << kMinKeypointSize << ", " << kMaxKeypointSize << "]";
  } else if (angles == Angles::Keep && !(k.angle >= 0.0f && k.angle <= 360.0f)) {
    why << "angle " << k.angle << " is not in [0, 360], so it cannot be kept";
  }
  return why.str();
}

long first_keypoint_problem(const std::vector<KeyPoint>& keypoints, int width, int height, std::string& why,
                            Angles angles) {
  for (size_t i = 0; i < keypoints.size(); ++i) {
    why = keypoint_problem(keypoints[i], width, height, angles);
    if (!why.empty()) return static_cast<long>(i);
  }
  return -1;
}

std::string angles_problem(const DetectorConfig& config, Angles angles) {
  if (angles == Angles::Keep && config.upright)
    return "upright descriptors are taken at angle 0: they keep no angle";
  return "";
}

Features compute(const GrayImage& image, std::vector<KeyPoint> keypoints, const DetectorConfig& config,
                 Angles angles) {
  if (const std::string why = angles_problem(config, angles); !why.empty()) throw Error(why);
  std::string why;
  if (const long i = first_keypoint_problem(keypoints, image.width, image.height, why, angles); i >= 0) {
    throw Error("keypoint " + std::to_string(i) + ": " + why);
  }
  Features f;
  f.descriptor_size = descriptor_size(config);
  f.descriptors = describe_all(integral_image(image), keypoints, config, angles);
  f.keypoints = std::move(keypoints);
  return f;
}

}  // namespace glsurf::cpu
