// GPU orientation and descriptors against the CPU reference.
//
// Tolerances (issue 4): orientation RMS difference <= 0.5 degrees over
// keypoints whose CPU window maximum is unambiguous: no candidate window
// whose refinement ends more than 0.5 degrees away comes within 0.1 % of the
// best. (Otherwise float rounding can pick the other peak, and the angle
// moves by a few degrees or more.) Tighter, since GPU and CPU run the same
// steps: RMS <= 0.01 degrees, and at most 1 in 1,000 of those keypoints
// differing by more than 0.05 degrees. Measured: RMS 1.2e-4 to 9.1e-4, none
// beyond 0.003 degrees on the photos or 0.046 on noise (with even box
// sides, one noise keypoint in 9,657 was at 0.062; on SURF's coarser
// lattice and with plain recentring, one keypoint in 10,000 was at 0.34
// degrees: a window sum whose peak is so flat that the recentring creeps,
// and float32 stops it a step earlier or later). These bounds catch what the 0.5 does not: a GPU
// whose recentring stopped after 6 sums instead of up to 20 measured RMS 0.30 degrees on box.png (14
// keypoints beyond 0.05), and one that left out the recentring's Aitken leaps (the CPU keeping them) 0.021
// (10 beyond 0.05). Descriptor cosine >= 0.999 for 99 % of keypoints; every descriptor of unit length (1e-4:
// float32 normalisation); nearest neighbour of each GPU descriptor among the CPU ones is its own counterpart
// for >= 99 %.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "io/warp.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

using namespace glsurf;

namespace {

// Index in `b` of the keypoint at a's position (0.1 px) and size (1 %), or -1.
std::vector<int> pair_up(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  std::map<std::pair<int, int>, std::vector<int>> cells;
  for (size_t i = 0; i < b.size(); ++i) {
    cells[{static_cast<int>(std::floor(b[i].x)), static_cast<int>(std::floor(b[i].y))}].push_back(
        static_cast<int>(i));
  }
  std::vector<int> out(a.size(), -1);
  for (size_t i = 0; i < a.size(); ++i) {
    const int cx = static_cast<int>(std::floor(a[i].x)), cy = static_cast<int>(std::floor(a[i].y));
    for (int dy = -1; dy <= 1 && out[i] < 0; ++dy)
      for (int dx = -1; dx <= 1 && out[i] < 0; ++dx) {
        const auto it = cells.find({cx + dx, cy + dy});
        if (it == cells.end()) continue;
        for (int j : it->second) {
          if (std::hypot(a[i].x - b[j].x, a[i].y - b[j].y) <= 0.1 &&
              std::abs(a[i].size - b[j].size) <= 0.01 * a[i].size) {
            out[i] = j;
            break;
          }
        }
      }
  }
  return out;
}

double dot(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// Detection and description of `image` on the GPU (every pass checked for
// GL errors; buffer_limit >= 0 caps the detector's buffer textures, 0: every
// input 2-D) and the CPU.
struct Both {
  Features gpu, cpu;
};
Both detect_and_compute_both(const GrayImage& image, const DetectorConfig& config, int buffer_limit) {
  GpuDetector detector(test::headless_context(), config);
  detector.runner().set_check_every_pass(true);
  if (buffer_limit >= 0) detector.limit_buffer_texels(buffer_limit);
  Both both{detector.detect_and_compute(image), cpu::detect_and_compute(image, config)};
  REQUIRE(both.gpu.descriptor_size == descriptor_size(config));
  REQUIRE(both.gpu.descriptors.size() ==
          both.gpu.keypoints.size() * static_cast<size_t>(descriptor_size(config)));
  return both;
}

// Returns the number of GPU keypoints.
size_t compare(const GrayImage& image, const DetectorConfig& config, int buffer_limit = -1) {
  const auto [gpu, cpu] = detect_and_compute_both(image, config, buffer_limit);
  const cpu::IntegralImage integral = cpu::integral_image(image);
  const int n = descriptor_size(config);
  const std::vector<int> partner = pair_up(gpu.keypoints, cpu.keypoints);
  // The GPU must find the CPU's keypoints, not only describe those it finds:
  // the fractions below are of the GPU's count, which an empty or cut-short
  // list would satisfy.
  REQUIRE(cpu.keypoints.size() > 100);
  const std::vector<int> reverse = pair_up(cpu.keypoints, gpu.keypoints);
  REQUIRE(std::count_if(reverse.begin(), reverse.end(), [](int k) { return k >= 0; }) >=
          0.99 * static_cast<double>(cpu.keypoints.size()));

  int paired = 0, close = 0, unambiguous = 0, nearest_is_partner = 0, unit = 0;
  double squared_angle_error = 0, largest = 0;
  int far = 0;
  for (size_t i = 0; i < gpu.keypoints.size(); ++i) {
    unit += std::abs(dot(gpu.descriptor(i), gpu.descriptor(i), n) - 1.0) < 1e-4;
    if (partner[i] < 0) continue;
    ++paired;
    const size_t j = static_cast<size_t>(partner[i]);
    close += dot(gpu.descriptor(i), cpu.descriptor(j), n) >= 0.999;
    if (!config.upright) {
      const cpu::Orientation o =
          cpu::orientation(integral, cpu.keypoints[j], true, config.second_orientation);
      if (o.runner_up < 0.999f * o.strength) {
        ++unambiguous;
        const double e = std::remainder(gpu.keypoints[i].angle - cpu.keypoints[j].angle, 360.0);
        squared_angle_error += e * e;
        far += std::abs(e) > 0.05;
        largest = std::max(largest, std::abs(e));
      }
    } else {
      CHECK(gpu.keypoints[i].angle == 0.0f);
    }
    size_t best = 0;
    double best_dot = -2;
    for (size_t m = 0; m < cpu.keypoints.size(); ++m) {
      const double d = dot(gpu.descriptor(i), cpu.descriptor(m), n);
      if (d > best_dot) best_dot = d, best = m;
    }
    nearest_is_partner += best == j;
  }
  const double rms = unambiguous ? std::sqrt(squared_angle_error / unambiguous) : 0.0;
  INFO("GPU " << gpu.keypoints.size() << ", CPU " << cpu.keypoints.size() << ", paired " << paired
              << ", cos>=0.999 " << close << ", unambiguous " << unambiguous << ", orientation RMS " << rms
              << " deg, " << far << " beyond 0.05 deg, NN " << nearest_is_partner);
  MESSAGE("GPU " << gpu.keypoints.size() << ", paired " << paired << ", cos>=0.999 " << close
                 << ", unambiguous " << unambiguous << ", orientation RMS " << rms << " deg, " << far
                 << " beyond 0.05 deg (largest " << largest << "), NN " << nearest_is_partner);
  REQUIRE(paired >= 0.99 * gpu.keypoints.size());
  CHECK(unit == static_cast<int>(gpu.keypoints.size()));
  // The CPU's sums start from +0 and never give -0; neither may the GPU's
  // read-back (a "-0" in the text output where the CPU writes "0").
  CHECK(std::count_if(gpu.descriptors.begin(), gpu.descriptors.end(),
                      [](float v) { return v == 0.0f && std::signbit(v); }) == 0);
  CHECK(close >= 0.99 * paired);
  CHECK(nearest_is_partner >= 0.99 * paired);
  if (!config.upright) {
    CHECK(unambiguous >= 0.8 * paired);
    CHECK(rms <= 0.5);
    CHECK(rms <= 0.01);
    CHECK(far * 1000 <= unambiguous);
    // On a peak of window sums so flat that the recentring creeps (noise at
    // threshold 0), float32 and float64 may stop one extrapolated step apart,
    // and a step is at most cpu::kOrientationLeap (1 degree); 10,000 noise
    // keypoints have one such keypoint 0.66 degrees apart.
    CHECK(largest <= 1.0);
  }
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  return gpu.keypoints.size();
}

// The entries of each point: features whose keypoints may have two entries
// (second orientations), which sort_by_strength puts side by side, as
// [begin, end) ranges.
std::vector<std::pair<size_t, size_t>> points_of(const Features& f) {
  std::vector<std::pair<size_t, size_t>> points;
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    const KeyPoint &k = f.keypoints[i], *previous = i > 0 ? &f.keypoints[i - 1] : nullptr;
    if (previous && previous->x == k.x && previous->y == k.y && previous->size == k.size) {
      points.back().second = i + 1;
    } else {
      points.push_back({i, i + 1});
    }
  }
  return points;
}

// With second orientations (config.second_orientation): every entry of the
// GPU's, keypoint and angle, has a CPU counterpart at its position (0.1 px),
// size (1 %) and angle (0.5 degrees), and the other way round, for >= 99 %;
// the rest as compare() (RMS <= 0.01 degrees over the pairs, cosine >=
// 0.999 for 99 %, unit length). The misses are where the second peak's
// ratio to the first lies so near config.second_orientation that float32
// and float64 decide differently. Returns the GPU's entries.
size_t compare_second(const GrayImage& image, const DetectorConfig& config, int buffer_limit = -1) {
  const auto [gpu, cpu] = detect_and_compute_both(image, config, buffer_limit);
  const int n = descriptor_size(config);
  REQUIRE(cpu.keypoints.size() > 100);
  const size_t gpu_points = points_of(gpu).size(), cpu_points = points_of(cpu).size();
  // The option is at work: a share of the points have two entries.
  REQUIRE(cpu.keypoints.size() - cpu_points >= 0.05 * cpu_points);
  if (config.max_features > 0) {
    CHECK(gpu.keypoints.size() == static_cast<size_t>(config.max_features));
    CHECK(cpu.keypoints.size() == static_cast<size_t>(config.max_features));
  }
  // Index in `to` of the entry at from[i]'s position, size and angle, or -1.
  const auto counterparts = [](const Features& from, const Features& to) {
    std::vector<int> out(from.keypoints.size(), -1);
    const std::vector<int> point = pair_up(from.keypoints, to.keypoints);  // an entry of the same point
    const std::vector<std::pair<size_t, size_t>> to_points = points_of(to);
    std::vector<size_t> point_of(to.keypoints.size());
    for (size_t p = 0; p < to_points.size(); ++p)
      for (size_t e = to_points[p].first; e < to_points[p].second; ++e) point_of[e] = p;
    for (size_t i = 0; i < from.keypoints.size(); ++i) {
      if (point[i] < 0) continue;
      const std::pair<size_t, size_t> entries = to_points[point_of[static_cast<size_t>(point[i])]];
      for (size_t e = entries.first; e < entries.second; ++e) {
        if (std::abs(std::remainder(from.keypoints[i].angle - to.keypoints[e].angle, 360.0)) < 0.5) {
          out[i] = static_cast<int>(e);
        }
      }
    }
    return out;
  };
  const std::vector<int> partner = counterparts(gpu, cpu), reverse = counterparts(cpu, gpu);
  int paired = 0, close = 0, unit = 0;
  double squared_angle_error = 0;
  for (size_t i = 0; i < gpu.keypoints.size(); ++i) {
    unit += std::abs(dot(gpu.descriptor(i), gpu.descriptor(i), n) - 1.0) < 1e-4;
    if (partner[i] < 0) continue;
    ++paired;
    const size_t j = static_cast<size_t>(partner[i]);
    close += dot(gpu.descriptor(i), cpu.descriptor(j), n) >= 0.999;
    const double e = std::remainder(gpu.keypoints[i].angle - cpu.keypoints[j].angle, 360.0);
    squared_angle_error += e * e;
  }
  const int reverse_paired =
      static_cast<int>(std::count_if(reverse.begin(), reverse.end(), [](int k) { return k >= 0; }));
  const double rms = paired ? std::sqrt(squared_angle_error / paired) : 0.0;
  MESSAGE("second orientations: GPU "
          << gpu.keypoints.size() << " entries of " << gpu_points << " points, CPU " << cpu.keypoints.size()
          << " of " << cpu_points << "; paired " << paired << ", back " << reverse_paired << ", cos>=0.999 "
          << close << ", RMS " << rms << " deg");
  CHECK(paired >= 0.99 * static_cast<double>(gpu.keypoints.size()));
  CHECK(reverse_paired >= 0.99 * static_cast<double>(cpu.keypoints.size()));
  CHECK(unit == static_cast<int>(gpu.keypoints.size()));
  CHECK(close >= 0.99 * paired);
  CHECK(rms <= 0.01);
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  return gpu.keypoints.size();
}

// Counter-clockwise rotation on screen by `degrees` about the image centre,
// resampled with a windowed sinc (io/warp.hpp), which the issue's "exact
// resampling" asks for: bilinear resampling blurs by an amount that varies
// with the sub-pixel phase. Multiples of 90 degrees are exact pixel
// permutations (every source point is a pixel centre). The same size as the
// input, turned for odd quarter turns; zero where the source point is
// outside the input. `map` sends input to output points.
struct Rotation {
  GrayImage image;
  Homography h;
  void map(double x, double y, double& ox, double& oy) const { apply(h, x, y, ox, oy); }
};

Rotation rotate(const GrayImage& in, int degrees) {
  const double radians = degrees * 3.14159265358979323846 / 180.0, c = std::cos(radians),
               s = std::sin(radians);
  const bool swap = degrees % 180 == 90;
  Rotation r;
  r.image = GrayImage(swap ? in.height : in.width, swap ? in.width : in.height);
  const double cx_in = (in.width - 1) / 2.0, cy_in = (in.height - 1) / 2.0;
  const double cx_out = (r.image.width - 1) / 2.0, cy_out = (r.image.height - 1) / 2.0;
  r.h = {c, s, cx_out - c * cx_in - s * cy_in, -s, c, cy_out + s * cx_in - c * cy_in, 0, 0, 1};
  const std::vector<double> values = warp_image(in, r.h, r.image.width, r.image.height);
  for (size_t i = 0; i < values.size(); ++i)
    r.image.pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(values[i]), 0L, 255L));
  return r;
}

struct RotationResult {
  int repeated = 0, turned = 0, matched = 0;
  std::vector<double> errors;  // orientation error of each repeated point, degrees
};

// Keypoints of the original that reappear in the rotated image (within 1.5 px
// of their mapped position, 10 % in size), how many of those turned by the
// rotation (3 degrees), and how many have their partner as nearest descriptor.
RotationResult rotation_check(const Features& a, const Features& b, const Rotation& r, int degrees) {
  RotationResult out;
  const int n = a.descriptor_size;
  for (size_t i = 0; i < a.keypoints.size(); ++i) {
    double x = 0, y = 0;
    r.map(a.keypoints[i].x, a.keypoints[i].y, x, y);
    int partner = -1;
    double closest = 1.5;
    for (size_t m = 0; m < b.keypoints.size(); ++m) {
      const double d = std::hypot(b.keypoints[m].x - x, b.keypoints[m].y - y);
      if (d < closest && std::abs(b.keypoints[m].size - a.keypoints[i].size) < 0.1 * a.keypoints[i].size) {
        closest = d;
        partner = static_cast<int>(m);
      }
    }
    if (partner < 0) continue;
    ++out.repeated;
    const double error =
        std::abs(std::remainder(b.keypoints[partner].angle - a.keypoints[i].angle - degrees, 360.0));
    out.errors.push_back(error);
    out.turned += error < 3.0;
    size_t best = 0;
    double best_dot = -2;
    for (size_t m = 0; m < b.keypoints.size(); ++m) {
      const double d = dot(a.descriptor(i), b.descriptor(m), n);
      if (d > best_dot) best_dot = d, best = m;
    }
    out.matched += static_cast<int>(best) == partner;
  }
  return out;
}

// As rotation_check, for features whose points may have two entries
// (second orientations): a point of `a` is repeated when an entry of `b`
// lies within 1.5 px of its mapped position and 10 % of its size; it turned
// when one of its angles and one of its partner point's differ by the
// rotation within 3 degrees (errors: the smallest such difference); it
// matched when the nearest descriptor of one of its entries is one of its
// partner point's.
RotationResult rotation_check_points(const Features& a, const Features& b, const Rotation& r, int degrees) {
  RotationResult out;
  const int n = a.descriptor_size;
  const std::vector<std::pair<size_t, size_t>> points_a = points_of(a), points_b = points_of(b);
  std::vector<size_t> point_of_b(b.keypoints.size());
  for (size_t p = 0; p < points_b.size(); ++p)
    for (size_t e = points_b[p].first; e < points_b[p].second; ++e) point_of_b[e] = p;
  for (const auto& [begin, end] : points_a) {
    const KeyPoint& k = a.keypoints[begin];
    double x = 0, y = 0;
    r.map(k.x, k.y, x, y);
    int partner = -1;
    double closest = 1.5;
    for (size_t p = 0; p < points_b.size(); ++p) {
      const KeyPoint& m = b.keypoints[points_b[p].first];
      const double d = std::hypot(m.x - x, m.y - y);
      if (d < closest && std::abs(m.size - k.size) < 0.1 * k.size) {
        closest = d;
        partner = static_cast<int>(p);
      }
    }
    if (partner < 0) continue;
    ++out.repeated;
    const auto [partner_begin, partner_end] = points_b[static_cast<size_t>(partner)];
    double error = 360;
    bool matched = false;
    for (size_t i = begin; i < end; ++i) {
      for (size_t m = partner_begin; m < partner_end; ++m) {
        error = std::min(
            error, std::abs(std::remainder(b.keypoints[m].angle - a.keypoints[i].angle - degrees, 360.0)));
      }
      size_t best = 0;
      double best_dot = -2;
      for (size_t m = 0; m < b.keypoints.size(); ++m) {
        const double d = dot(a.descriptor(i), b.descriptor(m), n);
        if (d > best_dot) best_dot = d, best = m;
      }
      matched = matched || point_of_b[best] == static_cast<size_t>(partner);
    }
    out.errors.push_back(error);
    out.turned += error < 3.0;
    out.matched += matched;
  }
  return out;
}

}  // namespace

TEST_SUITE("gl") {
  // At 30, 90 and 180 degrees >= 90 % of repeated points turn within 3
  // degrees, as the issue asks (30 degrees: 327 of 357, 91.6 %, median error
  // 0.66 degrees; 90 and 180 degrees are exact pixel permutations).
  // Most of the misses at 30 degrees come from detection: at the exact
  // positions the rotation sends the keypoints to, the CPU reference turns
  // 95 %. The check fails with a square smoothing box instead of the cross
  // (320 of 357, 89.6 %, measured on the detector with Dxy weighted by 0.81;
  // src/cpu/descriptor.hpp says why the cross turns better), with the rule's earlier parameters
  // (sigma 2.5 s, offset s/2, even box sides: 297 of 357, 83 %), on SURF's
  // coarser lattice (spacing s: 287 of 357, 80 %) and with SURF's own rule
  // (Haar responses in a hard-edged window), which turned 28 % of the
  // points, median error 5.3 degrees, on the CPU with bilinear resampling.
  TEST_CASE("rotations by 30, 90 and 180 degrees turn GPU orientations by as much; descriptors still match") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    DetectorConfig config;
    config.max_features = 1000;
    GpuDetector detector(test::headless_context(), config);
    const Features original = detector.detect_and_compute(image);
    for (const int degrees : {30, 90, 180}) {
      const Rotation r = rotate(image, degrees);
      const Features turned = detector.detect_and_compute(r.image);
      const RotationResult result = rotation_check(original, turned, r, degrees);
      REQUIRE(result.repeated >= 300);
      std::vector<double> e = result.errors;
      std::sort(e.begin(), e.end());
      INFO(degrees << " degrees: " << result.repeated << " repeated, " << result.turned << " turned by "
                   << degrees << " within 3 degrees, " << result.matched
                   << " matched; orientation error median " << e[e.size() / 2] << ", 90th percentile "
                   << e[e.size() * 9 / 10]);
      MESSAGE(degrees << " degrees: " << result.turned << " of " << result.repeated
                      << " turned within 3 degrees, " << result.matched << " matched, median error "
                      << e[e.size() / 2]);
      CHECK(result.turned >= 0.9 * result.repeated);
      CHECK(e[e.size() / 2] < 1.0);
      CHECK(result.matched >= 0.85 * result.repeated);
    }
    // The check can fail: upright descriptors do not turn with the image.
    DetectorConfig upright = config;
    upright.upright = true;
    GpuDetector u(test::headless_context(), upright);
    const Rotation r = rotate(image, 90);
    const RotationResult result =
        rotation_check(u.detect_and_compute(image), u.detect_and_compute(r.image), r, 90);
    INFO("upright, 90 degrees: " << result.repeated << " repeated, " << result.matched << " matched");
    REQUIRE(result.repeated >= 300);
    CHECK(result.turned == 0);
    CHECK(result.matched < 0.3 * result.repeated);
  }

  // A second orientation where a keypoint's second peak of window sums comes
  // close to its first (as SIFT): of the misses with one orientation, most
  // are flips to such a peak (docs/notes/orientation.md). Measured: at 30 degrees 96 % of
  // the repeated points turn within 3 degrees (330 of 342).
  TEST_CASE(
      "with second orientations, rotations by 30, 90 and 180 degrees turn 90 % of the repeated points") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    DetectorConfig config;
    config.second_orientation = 0.8f;
    config.max_features = 1300;  // entries: about the 1,000 strongest points
    GpuDetector detector(test::headless_context(), config);
    const Features original = detector.detect_and_compute(image);
    for (const int degrees : {30, 90, 180}) {
      const Rotation r = rotate(image, degrees);
      const Features turned = detector.detect_and_compute(r.image);
      // The option is at work: more entries than points.
      REQUIRE(turned.keypoints.size() >= 1.1 * points_of(turned).size());
      const RotationResult result = rotation_check_points(original, turned, r, degrees);
      REQUIRE(result.repeated >= 300);
      std::vector<double> e = result.errors;
      std::sort(e.begin(), e.end());
      INFO(degrees << " degrees: " << result.repeated << " repeated, " << result.turned << " turned, "
                   << result.matched << " matched");
      MESSAGE("second orientations, " << degrees << " degrees: " << result.turned << " of " << result.repeated
                                      << " points turned within 3 degrees, " << result.matched
                                      << " matched, median error " << e[e.size() / 2]);
      CHECK(result.turned >= 0.9 * result.repeated);
      CHECK(result.matched >= 0.85 * result.repeated);
    }
  }

  TEST_CASE("GPU second orientations agree with the CPU reference") {
    DetectorConfig config;
    config.second_orientation = 0.8f;
    compare_second(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), config);
    compare_second(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), config);
    // Held to max_features entries, as the CPU's; extended descriptors.
    config.max_features = 700;
    config.extended = true;
    config.second_orientation = 0.9f;
    compare_second(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), config);
    // Every input 2-D (images too large for the driver's buffer textures).
    compare_second(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), config, 0);
  }

  TEST_CASE("GPU second orientations of 10,000 keypoints agree with the CPU reference") {
    // More than one orientation chunk (OrientationStage::kChunk), more than one
    // row of second entries, and seeds at every candidate, the groups' ends too.
    DetectorConfig config;
    config.hessian_threshold = 0;
    config.max_features = 10000;
    config.second_orientation = 0.8f;
    CHECK(compare_second(test::random_image(800, 800, 21), config) == 10000);
  }

  TEST_CASE("GPU descriptors and orientations of linear ramps follow from SURF's definition") {
    test::check_ramp_descriptors(
        [](const GrayImage& image, const std::vector<KeyPoint>& k, const DetectorConfig& config) {
          return GpuDetector(test::headless_context(), config).compute(image, k);
        },
        1e-5);
  }

  TEST_CASE("GPU descriptors do not change under I -> a I + b") {
    GrayImage j = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    for (auto& p : j.pixels) p = static_cast<std::uint8_t>(p / 2);
    GrayImage k = j;
    for (auto& p : k.pixels) p = static_cast<std::uint8_t>(2 * p + 10);  // integers, no clipping
    DetectorConfig cj, ck;
    cj.hessian_threshold = 25;
    ck.hessian_threshold = 100;  // det scales by a^2 = 4
    GpuDetector dj(test::headless_context(), cj), dk(test::headless_context(), ck);
    const Features fj = dj.detect_and_compute(j), fk = dk.detect_and_compute(k);
    REQUIRE(fj.keypoints.size() > 100);
    REQUIRE(fj.keypoints.size() == fk.keypoints.size());
    int same = 0;
    for (size_t i = 0; i < fj.keypoints.size(); ++i)
      same += dot(fj.descriptor(i), fk.descriptor(i), 64) >= 0.999;
    CHECK(same == static_cast<int>(fj.keypoints.size()));
  }

  TEST_CASE("GPU orientation and 64-value descriptors agree with the CPU reference") {
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{});
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), DetectorConfig{});
  }

  TEST_CASE(
      "more than one orientation chunk (OrientationStage::kChunk keypoints) agrees with the CPU reference") {
    // Noise at threshold 0: about 2.4 % of the pixels are keypoints; keep
    // 10,000. This noise has keypoints on peaks so flat that the recentring
    // creeps by the same 0.01-0.05 degrees every sum: judging its 1-degree
    // steps by the sign of the moves' difference (rounding noise there) left
    // two of them 0.9 and 5.0 degrees apart on the two backends.
    DetectorConfig config;
    config.hessian_threshold = 0;
    config.max_features = 10000;
    CHECK(compare(test::random_image(800, 800, 2), config) > static_cast<size_t>(OrientationStage::kChunk));
  }

  TEST_CASE("keypoints far from the origin (an 8K-wide image) agree with the CPU reference as near it") {
    // Sample positions are split into the keypoint's whole pixel and small
    // offsets (common/haar.glsl); absolute float32 coordinates put this
    // image's orientations 0.013 degrees RMS from the CPU's, 19 of them beyond
    // 0.05 degrees.
    DetectorConfig config;
    config.hessian_threshold = 0;
    config.max_features = 10000;
    compare(test::random_image(7680, 120, 7), config);
  }

  // A host drawing into glsurf's context may leave any GL state behind. Each
  // of these would change what some pass writes (blending adds to the targets,
  // the scissor box, colour mask, culling, wireframe polygons and discard keep
  // texels from being written, the logic op garbles the integer targets, the
  // point size widens the selection's histogram points, the depth range moves
  // the culled passes' depth; a sampler object filters the integer textures
  // into incompleteness; a row length, skip, byte swap, read clamp or bound
  // pixel buffer changes uploads and readbacks). glsurf must give the same result as from GL's
  // defaults, and leave the host's state as it found it.
  TEST_CASE("the host's GL state changes neither the result nor survives it") {
    DetectorConfig config;
    config.max_features = 300;  // the radix selection scatters points
    const GrayImage image = test::random_image(200, 150, 4);
    const Features clean = GpuDetector(test::headless_context(), config).detect_and_compute(image);
    REQUIRE(clean.keypoints.size() == 300);

    GLuint buffers[2] = {0, 0};
    glGenBuffers(2, buffers);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffers[0]);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 1 << 20, nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, buffers[1]);
    glBufferData(GL_PIXEL_PACK_BUFFER, 1 << 20, nullptr, GL_STREAM_READ);
    struct Defaults {  // GL's initial state again, whatever happens below
      GLuint* buffers;
      ~Defaults() {
        for (GLenum cap :
             {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST, GL_STENCIL_TEST,
              GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE, GL_RASTERIZER_DISCARD})
          glDisable(cap);
        glBlendFunc(GL_ONE, GL_ZERO);
        glBlendEquation(GL_FUNC_ADD);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glPointSize(1);
        glDepthRange(0, 1);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
        glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_FALSE);
        glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
        glClampColor(GL_CLAMP_READ_COLOR, GL_FIXED_ONLY);
        for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, 0);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glDeleteBuffers(2, buffers);
      }
    } defaults{buffers};
    for (GLenum cap : {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST,
                       GL_STENCIL_TEST, GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE})
      glEnable(cap);
    glBlendFunc(GL_ONE, GL_ONE);
    glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
    glScissor(0, 0, 3, 3);
    glCullFace(GL_FRONT_AND_BACK);
    glLogicOp(GL_XOR);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    glPointSize(4);
    glDepthRange(0, 0);
    glDepthFunc(GL_NEVER);
    glDepthMask(GL_FALSE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 2);
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_TRUE);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    glClampColor(GL_CLAMP_READ_COLOR, GL_TRUE);  // float readbacks clamped to [0, 1]
    GLuint sampler = 0;                          // linear filtering on the first units
    glGenSamplers(1, &sampler);
    glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, sampler);
    REQUIRE(glGetError() == GL_NO_ERROR);

    // A detector made under that state, used under it, and again with the
    // rasteriser discarding everything (each pass turns that off too).
    GpuDetector detector(test::headless_context(), config);
    for (const bool discard : {false, true}) {
      if (discard) glEnable(GL_RASTERIZER_DISCARD);
      const Features hostile = detector.detect_and_compute(image);
      INFO("rasteriser discard " << discard);
      REQUIRE(hostile.keypoints.size() == clean.keypoints.size());
      int same = 0;
      for (size_t i = 0; i < clean.keypoints.size(); ++i) {
        const KeyPoint &a = clean.keypoints[i], &b = hostile.keypoints[i];
        same +=
            a.x == b.x && a.y == b.y && a.size == b.size && a.angle == b.angle && a.response == b.response;
      }
      CHECK(same == static_cast<int>(clean.keypoints.size()));
      CHECK(hostile.descriptors == clean.descriptors);
    }

    // ... and it is all still there.
    for (GLenum cap : {GL_BLEND, GL_SCISSOR_TEST, GL_CULL_FACE, GL_COLOR_LOGIC_OP, GL_DEPTH_TEST,
                       GL_STENCIL_TEST, GL_POLYGON_OFFSET_FILL, GL_PROGRAM_POINT_SIZE, GL_RASTERIZER_DISCARD})
      CHECK(glIsEnabled(cap) == GL_TRUE);
    GLint v[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_BLEND_DST_RGB, v);
    CHECK(v[0] == GL_ONE);
    glGetIntegerv(GL_BLEND_EQUATION_RGB, v);
    CHECK(v[0] == GL_FUNC_REVERSE_SUBTRACT);
    glGetIntegerv(GL_DEPTH_FUNC, v);
    CHECK(v[0] == GL_NEVER);
    glGetIntegerv(GL_POLYGON_MODE, v);
    CHECK(v[0] == GL_LINE);
    GLboolean mask[4] = {0, 0, 0, 0}, depth_mask = GL_TRUE;
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    CHECK((mask[0] && !mask[1] && mask[2] && !mask[3]));
    glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask);
    CHECK(depth_mask == GL_FALSE);
    GLfloat point_size = 0, depth_range[2] = {1, 1};
    glGetFloatv(GL_POINT_SIZE, &point_size);
    glGetFloatv(GL_DEPTH_RANGE, depth_range);
    CHECK(point_size == 4);
    CHECK(depth_range[1] == 0);
    glGetIntegerv(GL_UNPACK_ROW_LENGTH, v);
    CHECK(v[0] == 7);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, v);
    CHECK(v[0] == 2);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, v);
    CHECK(v[0] == static_cast<GLint>(buffers[0]));
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, v);
    CHECK(v[0] == static_cast<GLint>(buffers[1]));
    glGetIntegerv(GL_UNPACK_SWAP_BYTES, v);
    CHECK(v[0] == GL_TRUE);
    glGetIntegerv(GL_CLAMP_READ_COLOR, v);
    CHECK(v[0] == GL_TRUE);
    glActiveTexture(GL_TEXTURE2);
    glGetIntegerv(GL_SAMPLER_BINDING, v);
    glActiveTexture(GL_TEXTURE0);
    CHECK(v[0] == static_cast<GLint>(sampler));
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
    for (GLuint unit = 0; unit < 4; ++unit) glBindSampler(unit, 0);
    glDeleteSamplers(1, &sampler);
  }

  TEST_CASE(
      "the 2-D quads (images too large for the driver's buffer textures) agree with the CPU reference") {
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, 0);
    DetectorConfig extended;
    extended.extended = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), extended, 0);
    // The GL 3.3 minimum, 65,536 texels: box.png's quads, 326 x 225 = 73,350
    // texels, do not fit, so the stage picks the 2-D path by itself.
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, 65536);
  }

  TEST_CASE("GPU extended (128) and upright descriptors agree with the CPU reference") {
    DetectorConfig extended;
    extended.extended = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), extended);
    DetectorConfig upright;
    upright.upright = true;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), upright);
  }

  // GpuDetector::compute against cpu::compute, on the same given keypoints, every
  // keypoint paired by its index: the tolerances, and with `tight`
  // those of compare() above.
  // `count` keypoints spread over a 48 x 48 image, a size's width from its
  // border (sizes 9 to 20), with both Laplacian signs and angles around the
  // circle (which only Angles::Keep uses).
  std::vector<KeyPoint> placed_on_48(size_t count) {
    std::vector<KeyPoint> placed(count);
    for (size_t i = 0; i < count; ++i) {
      const float size = 9.0f + static_cast<float>(i % 12), span = 47.0f - 2 * size;
      placed[i].x = size + span * static_cast<float>((i * 37) % 1000) / 1000.0f;
      placed[i].y = size + span * static_cast<float>((i * 53) % 1000) / 1000.0f;
      placed[i].size = size;
      placed[i].laplacian = i % 2 ? 1 : -1;
      placed[i].angle = static_cast<float>((i * 71) % 3600) / 10.0f;
    }
    return placed;
  }

  void compare_given(const GrayImage& image, const std::vector<KeyPoint>& given, const DetectorConfig& config,
                     GpuDetector& detector, bool tight) {
    const Features gpu = detector.compute(image, given);
    const Features cpu = cpu::compute(image, given, config);
    const cpu::IntegralImage integral = cpu::integral_image(image);
    const int n = descriptor_size(config);
    REQUIRE(gpu.keypoints.size() == given.size());
    REQUIRE(gpu.descriptors.size() == given.size() * static_cast<size_t>(n));
    int kept = 0, close = 0, unambiguous = 0, far = 0;
    double squared_angle_error = 0;
    for (size_t i = 0; i < given.size(); ++i) {
      const KeyPoint &g = gpu.keypoints[i], &k = given[i];
      kept += g.x == k.x && g.y == k.y && g.size == k.size && g.response == k.response &&
              g.laplacian == k.laplacian;
      close += dot(gpu.descriptor(i), cpu.descriptor(i), n) >= 0.999;
      if (config.upright) continue;
      // Among as many candidates as the configuration's (cpu::orientation_candidates).
      const cpu::Orientation o = cpu::orientation(integral, given[i], true, config.second_orientation);
      if (o.runner_up < 0.999f * o.strength) {
        ++unambiguous;
        const double e = std::remainder(g.angle - cpu.keypoints[i].angle, 360.0);
        squared_angle_error += e * e;
        far += std::abs(e) > 0.05;
      }
    }
    const double rms = unambiguous ? std::sqrt(squared_angle_error / unambiguous) : 0.0;
    MESSAGE(given.size() << " given keypoints: cos>=0.999 " << close << ", unambiguous " << unambiguous
                         << ", orientation RMS " << rms << " deg, " << far << " beyond 0.05 deg");
    CHECK(kept == static_cast<int>(given.size()));
    CHECK(close >= 0.99 * given.size());
    CHECK(rms <= 0.5);
    if (tight) {
      CHECK(rms <= 0.01);
      CHECK(far * 1000 <= unambiguous);
    }
  }

  TEST_CASE("GPU compute() of given keypoints agrees with the CPU reference, on a photo and across chunks") {
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    std::vector<KeyPoint> given = cpu::detect(box, DetectorConfig{});
    // Hand-placed: the image's corners, very small and very large, no laplacian.
    for (const auto& [x, y, size] : {std::array<float, 3>{-0.5f, -0.5f, 9.0f},
                                     {323.5f, 222.5f, 40.0f},
                                     {161.3f, 111.8f, 400.0f},
                                     {100.25f, 50.5f, 1.0f}}) {
      KeyPoint k;
      k.x = x, k.y = y, k.size = size;
      given.push_back(k);
    }
    // With second orientations configured, the one orientation compute() gives
    // is sought among 64 candidates, as detection's first, on both backends.
    for (const auto& [extended, second] : {std::pair{false, 0.0f}, {true, 0.0f}, {false, 0.8f}}) {
      DetectorConfig config;
      config.extended = extended;
      config.second_orientation = second;
      GpuDetector detector(test::headless_context(), config);
      detector.runner().set_check_every_pass(true);
      compare_given(box, given, config, detector, /*tight=*/true);
    }
    // A 48 x 48 image: the point list, and so a chunk of compute(), holds
    // fewer entries than the 5,000 keypoints given. They keep a size's width
    // from the border, so that (as for detected keypoints) their orientation
    // samples lie inside the image. Where the border clips them, the
    // recentring may not settle on hand-placed points, and float32 and float64
    // can stop at different points: 8 of 5,000 placed anywhere in this image
    // differed by 0.8 to 8 degrees, or by 177 where a runner-up came within
    // 2 % (docs/notes/descriptor.md). Inside, 5 of the 4,848
    // unambiguous ones differ by more than 0.05 degrees (RMS 0.016): points
    // placed at random on noise are less well conditioned than detected ones,
    // so the tolerances apply here, not compare()'s tighter ones.
    const GrayImage noise = test::random_image(48, 48, 5);
    DetectorConfig config;
    GpuDetector detector(test::headless_context(), config);
    detector.detect(noise);
    CHECK(detector.last_on_gpu().angles == nullptr);  // detect() orients nothing
    const gl::Texture& list = *detector.last_on_gpu().list;
    INFO("point list " << list.width() << " x " << list.height());
    REQUIRE(list.width() * list.height() < 5000);
    const std::vector<KeyPoint> random = placed_on_48(5000);
    compare_given(noise, random, config, detector, /*tight=*/false);
    CHECK(detector.last_on_gpu().count == 0);
    CHECK(detector.last_on_gpu().angles == nullptr);
  }

  // Kept angles (Angles::Keep) skip the orientation passes: the GPU's
  // descriptors at given angles, against the CPU's at the same angles.
  void compare_kept(const GrayImage& image, const std::vector<KeyPoint>& given, const DetectorConfig& config,
                    GpuDetector& detector) {
    const Features gpu = detector.compute(image, given, Angles::Keep);
    const Features cpu = cpu::compute(image, given, config, Angles::Keep);
    const int n = descriptor_size(config);
    REQUIRE(gpu.keypoints.size() == given.size());
    REQUIRE(gpu.descriptors.size() == given.size() * static_cast<size_t>(n));
    int kept = 0, close = 0;
    double lowest = 1;
    for (size_t i = 0; i < given.size(); ++i) {
      const KeyPoint &g = gpu.keypoints[i], &k = given[i];
      kept += g.x == k.x && g.y == k.y && g.size == k.size && g.angle == k.angle &&
              cpu.keypoints[i].angle == k.angle;
      const double c = dot(gpu.descriptor(i), cpu.descriptor(i), n);
      close += c >= 0.999;
      lowest = std::min(lowest, c);
    }
    MESSAGE(given.size() << " keypoints at kept angles: cos>=0.999 " << close << ", largest 1 - cos "
                         << 1 - lowest);
    CHECK(kept == static_cast<int>(given.size()));
    // Every one: the 1 % that compare_given allows is for orientations that
    // rounding can tip, and a kept angle has none to tip.
    CHECK(close == static_cast<int>(given.size()));
  }

  // The descriptor pass takes a keypoint's Haar responses without clipping
  // where its turned 20s window keeps a pixel clear of the border
  // (descriptor.frag, window_inside). At keypoints placed from just
  // inside that reach to just outside it, on each side, at every size and
  // angle below (the image is large enough that each has keypoints on both
  // sides of it), every value agrees with the CPU's: a box read without
  // clipping where it is clipped would be off by far more than rounding.
  TEST_CASE(
      "GPU descriptors at the edge of the clipping-free part agree with the CPU reference value by value") {
    const GrayImage noise = test::random_image(200, 160, 9);
    std::vector<KeyPoint> given;
    for (const float size : {9.0f, 13.3f, 20.0f, 31.7f}) {
      const double s = 1.2 * size / 9.0;
      // even_side(kDescriptorHaar s), common/sides.glsl
      const int h = std::max(2, 2 * static_cast<int>(std::floor(cpu::kDescriptorHaar * s / 2 + 0.5)));
      for (const float angle : {0.0f, 30.0f, 45.0f, 77.0f, 135.0f, 200.0f, 315.0f}) {
        const double r = angle * 3.14159265358979323846 / 180.0;
        const double reach = 9.5 * s * (std::abs(std::cos(r)) + std::abs(std::sin(r))) + 0.5 * h + 2.0;
        for (const double off : {-2.0, -1.0, -0.3, 0.3, 1.0, 2.0}) {
          for (int side = 0; side < 4; ++side) {
            KeyPoint k;
            k.size = size;
            k.angle = angle;
            k.laplacian = 1;
            const double in = reach + off;  // from the side's edge
            k.x = static_cast<float>(side == 0 ? in : side == 1 ? noise.width - in : 100.3);
            k.y = static_cast<float>(side == 2 ? in : side == 3 ? noise.height - in : 80.6);
            if (k.x >= 0 && k.y >= 0 && k.x <= noise.width - 1 && k.y <= noise.height - 1) given.push_back(k);
          }
        }
      }
    }
    REQUIRE(given.size() > 300);
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      GpuDetector detector(test::headless_context(), config);
      const Features gpu = detector.compute(noise, given, Angles::Keep);
      const Features cpu = cpu::compute(noise, given, config, Angles::Keep);
      const int n = descriptor_size(config);
      REQUIRE(gpu.descriptors.size() == cpu.descriptors.size());
      double largest = 0;
      size_t worst = 0;
      for (size_t i = 0; i < given.size(); ++i) {
        for (int v = 0; v < n; ++v) {
          const double d = std::abs(gpu.descriptor(i)[v] - cpu.descriptor(i)[v]);
          if (d > largest) largest = d, worst = i;
        }
      }
      INFO(given.size() << " keypoints, largest difference " << largest << " at keypoint " << worst << " ("
                        << given[worst].x << ", " << given[worst].y << ") size " << given[worst].size);
      MESSAGE("edge of the clipping-free part, " << n << " values: largest difference " << largest);
      CHECK(largest < 1e-4);
    }
  }

  TEST_CASE("GPU compute() at kept angles agrees with the CPU reference; second orientations again") {
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    std::vector<KeyPoint> given = cpu::detect(box, DetectorConfig{});
    // Angles around the circle, both ends included.
    for (size_t i = 0; i < given.size(); ++i)
      given[i].angle = i == 0 ? 0.0f : i == 1 ? 360.0f : std::fmod(47.3f * i, 360.0f);
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      GpuDetector detector(test::headless_context(), config);
      detector.runner().set_check_every_pass(true);
      detector.runner().set_profiling(true);
      compare_kept(box, given, config, detector);
      // No orientation pass ran.
      int orientation_passes = 0, descriptor_passes = 0;
      for (const auto& pass : detector.runner().take_profile()) {
        orientation_passes += pass.name.rfind("orientation_", 0) == 0 && pass.name != "orientation_quads";
        descriptor_passes += pass.name == "descriptor_sums";
      }
      CHECK(orientation_passes == 0);
      CHECK(descriptor_passes == 1);
      detector.runner().set_profiling(false);
      // The library refuses what the command line does: an angle outside
      // [0, 360], and upright descriptors.
      std::vector<KeyPoint> no_angle(given.begin(), given.begin() + 3);
      no_angle[2].angle = -1;
      CHECK_THROWS_WITH_AS(detector.compute(box, no_angle, Angles::Keep),
                           doctest::Contains("keypoint 2: angle -1 is not in [0, 360]"), Error);
    }
    DetectorConfig upright;
    upright.upright = true;
    CHECK_THROWS_WITH_AS(GpuDetector(test::headless_context(), upright).compute(box, given, Angles::Keep),
                         doctest::Contains("upright descriptors are taken at angle 0"), Error);
    // More keypoints than a chunk of compute() (the point list of a 48 x 48
    // image holds fewer than 5,000), placed at random on noise.
    const GrayImage noise = test::random_image(48, 48, 6);
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    detector.detect(noise);
    REQUIRE(detector.last_on_gpu().list->width() * detector.last_on_gpu().list->height() < 5000);
    const std::vector<KeyPoint> random = placed_on_48(5000);
    compare_kept(noise, random, DetectorConfig{}, detector);
    // A detection with second orientations, described again at its angles,
    // gives its own descriptors: the same passes at the same angles.
    DetectorConfig second;
    second.second_orientation = 0.8f;
    GpuDetector twice(test::headless_context(), second);
    const Features detected = twice.detect_and_compute(box);
    const Features again = twice.compute(box, detected.keypoints, Angles::Keep);
    REQUIRE(again.keypoints.size() == detected.keypoints.size());
    REQUIRE(detected.keypoints.size() >= 1.1 * given.size());  // some points have two entries
    int same = 0;
    for (size_t i = 0; i < again.keypoints.size(); ++i) {
      same += again.keypoints[i].angle == detected.keypoints[i].angle &&
              dot(again.descriptor(i), detected.descriptor(i), 64) >= 0.99999;
    }
    CHECK(same == static_cast<int>(again.keypoints.size()));
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("GPU compute() takes images detection refuses (too small), between detections of another size") {
    // Describing needs only the integral image: a 10 x 10 image, smaller than
    // the smallest filter, is described as on the CPU, and the detector's
    // stages are sized again for the next detection.
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage tiny = test::random_image(10, 10, 4);
    DetectorConfig config;
    GpuDetector detector(test::headless_context(), config);
    REQUIRE_FALSE(detector.size_problem(10, 10).empty());
    CHECK(detector.compute_size_problem(10, 10).empty());
    const std::vector<KeyPoint> first = detector.detect(box);
    std::vector<KeyPoint> given(3);
    given[0].x = 4.5f, given[0].y = 4.5f, given[0].size = 9;
    given[1].x = 2.2f, given[1].y = 7.1f, given[1].size = 5, given[1].laplacian = -1;
    given[2].x = 7.0f, given[2].y = 2.0f, given[2].size = 3;
    compare_given(tiny, given, config, detector, true);
    const std::vector<KeyPoint> again = detector.detect(box);
    CHECK(again.size() == first.size());
    CHECK(test::same_keypoints(first, again));
  }

  TEST_CASE("GPU extended descriptors agree with the CPU's on images constant along one axis") {
    // Responses across the constant axis are zero but for rounding, which
    // float32 and float64 round differently; OpenCV's plain sign split moved
    // whole components between the halves by it (cosine 0 at some keypoints,
    // 60 of these 200 below 0.999 before kSplitTolerance).
    const GrayImage noise = test::random_image(64, 1, 1);
    GrayImage columns(64, 64), rows(64, 64);
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) columns.at(x, y) = noise.at(x, 0), rows.at(y, x) = noise.at(x, 0);
    std::vector<KeyPoint> given(200);
    std::mt19937 random(2);
    for (KeyPoint& k : given) {
      k.x = std::uniform_real_distribution<float>(5, 58)(random);
      k.y = std::uniform_real_distribution<float>(5, 58)(random);
      k.size = std::uniform_real_distribution<float>(5, 20)(random);
    }
    DetectorConfig config;
    config.extended = true;
    GpuDetector detector(test::headless_context(), config);
    for (const GrayImage* image : {&columns, &rows}) {
      const Features gpu = detector.compute(*image, given), cpu = cpu::compute(*image, given, config);
      REQUIRE(gpu.keypoints.size() == given.size());
      int close = 0, negative_zero = 0;
      double worst = 1;
      for (size_t i = 0; i < given.size(); ++i) {
        const double d = dot(gpu.descriptor(i), cpu.descriptor(i), 128);
        close += d >= 0.999;
        worst = std::min(worst, d);
        // Angle 0 reached from a direction of +0 was -0, which files showed as "-0".
        negative_zero += std::signbit(gpu.keypoints[i].angle) + std::signbit(cpu.keypoints[i].angle);
      }
      CHECK(negative_zero == 0);
      INFO(std::string(image == &columns ? "constant columns" : "constant rows")
           << ": lowest cosine " << worst);
      CHECK(close == static_cast<int>(given.size()));
    }
  }

  // How many of a flat image's features have angle 0 and a zero 64-value
  // descriptor, as the CPU reference gives them.
  int flat_results(const Features& f) {
    int zero = 0;
    for (size_t i = 0; i < f.keypoints.size(); ++i) {
      const float* d = f.descriptor(i);
      zero += f.keypoints[i].angle == 0.0f && std::all_of(d, d + 64, [](float v) { return v == 0.0f; });
    }
    return zero;
  }

  // compute() too takes the orientation samples of the keypoints clear of
  // the border (cpu::orientation_inside) without clipping, and the others with
  // it. Keypoints placed from 3 px outside to 3 px inside that limit, on a
  // smooth image whose orientations are well conditioned, take the same angles
  // as on the CPU whichever path they go, and on a flat patch angle 0 and a
  // zero descriptor. With the limit 3 px looser, boxes that reach past the
  // border go the clipping-free way, which reads them clamped: the flat patch
  // then gets gradients and this fails (the smooth image's angles hardly
  // move: those boxes lie where the Gaussian weight is small).
  TEST_CASE("GPU orientations at the edge of the clipping-free samples agree with the CPU reference") {
    GrayImage smooth(220, 170);
    for (int y = 0; y < smooth.height; ++y)
      for (int x = 0; x < smooth.width; ++x)
        smooth.at(x, y) = static_cast<std::uint8_t>(
            std::lround(128 + 60 * std::sin(x / 7.0 + y / 11.0) + 40 * std::cos(x / 13.0 - y / 5.0)));
    std::vector<KeyPoint> given;
    int inside = 0;
    for (const float size : {9.0f, 13.3f, 20.0f}) {
      const double s = 1.2 * size / 9.0;
      const int h = cpu::orientation_cross(s).long_side;
      // cpu::orientation_inside's limit, from each side's edge.
      const double limit =
          (cpu::kOrientationSteps * cpu::kOrientationStep + cpu::kOrientationOffset) * s + 0.5 * h + 1.5;
      for (const double off : {-3.0, -1.5, -0.5, 0.5, 1.5, 3.0}) {
        for (int side = 0; side < 4; ++side) {
          KeyPoint k;
          k.size = size;
          k.laplacian = 1;
          const double in =
              limit + off + (side & 1 ? 1.0 : 0.0);  // the far sides' limit is a pixel farther in
          k.x = static_cast<float>(side == 0 ? in : side == 1 ? smooth.width - in : 110.3);
          k.y = static_cast<float>(side == 2 ? in : side == 3 ? smooth.height - in : 85.6);
          given.push_back(k);
          inside += cpu::orientation_inside(k, smooth.width, smooth.height);
        }
      }
    }
    INFO(inside << " of " << given.size() << " keypoints clear of the border");
    REQUIRE(inside > 0);  // both paths
    REQUIRE(inside < static_cast<int>(given.size()));
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    const Features gpu = detector.compute(smooth, given);
    const Features cpu = cpu::compute(smooth, given, DetectorConfig{});
    double largest = 0;
    for (size_t i = 0; i < given.size(); ++i) {
      CHECK(gpu.keypoints[i].x == given[i].x);  // in the given order
      const double difference =
          std::remainder(double{gpu.keypoints[i].angle} - cpu.keypoints[i].angle, 360.0);
      largest = std::max(largest, std::abs(difference));
    }
    MESSAGE("edge of the clipping-free orientation samples: largest angle difference " << largest
                                                                                       << " degrees");
    CHECK(largest < 0.01);

    CHECK(flat_results(detector.compute(GrayImage(220, 170, 77), given)) == static_cast<int>(given.size()));
  }

  TEST_CASE("GPU compute(): a flat patch has angle 0 and a zero descriptor, as on the CPU") {
    // Before box means were weighted about the first one (common/haar.glsl),
    // float32 rounding noise in the orientation samples gave such keypoints
    // angles of 90 or 180 degrees, where the CPU reference gave 0.
    const GrayImage flat(64, 48, 77);
    std::vector<KeyPoint> given = test::flat_patch_keypoints();
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    CHECK(flat_results(detector.compute(flat, given)) == static_cast<int>(given.size()));
    given[3].y = -1;
    CHECK_THROWS_WITH_AS(detector.compute(flat, given),
                         doctest::Contains("keypoint 3: (63.5, -1) is outside"), Error);
  }

  // The point list's compaction lists the keypoints whose orientation samples
  // need no clipping (cpu::orientation_inside, evaluated in the shaders) first,
  // inside_last_frame() of them, so that description takes them without the
  // clipping arithmetic with no read-back or upload of the list in between.
  // Checked against the CPU's test on the detector's own list: the first
  // inside_last_frame() entries have it and no later one does; box.png has
  // keypoints on both sides of the limit. A keypoint so close to the limit
  // that float32 and float64 could class it apart (the test flips when the
  // keypoint moves by 1e-3 px or its size by 1e-4 of itself) is not counted
  // against either. last_on_gpu() pairs each entry with its own angle after
  // detect_and_compute.
  static void check_inside_first(const GpuDetector& detector, const GrayImage& image, int count) {
    const std::vector<float> list = detector.last_on_gpu().list->download_f32();
    const int inside = detector.inside_last_frame();
    int wrong_first = 0, wrong_later = 0, near = 0;
    for (int i = 0; i < count; ++i) {
      KeyPoint k;
      k.x = list[4 * static_cast<size_t>(i)], k.y = list[4 * static_cast<size_t>(i) + 1];
      k.size = std::abs(list[4 * static_cast<size_t>(i) + 2]);
      const bool has = cpu::orientation_inside(k, image.width, image.height);
      bool steady = true;
      for (const float d : {-1e-3f, 1e-3f}) {
        for (const glm::vec3 move :
             {glm::vec3(d, d, 0), glm::vec3(d, -d, 0), glm::vec3(0, 0, 0.1f * d * k.size)}) {
          KeyPoint m = k;
          m.x += move.x, m.y += move.y, m.size += move.z;
          steady = steady && cpu::orientation_inside(m, image.width, image.height) == has;
        }
      }
      near += !steady;
      wrong_first += steady && i < inside && !has;
      wrong_later += steady && i >= inside && has;
    }
    INFO(inside << " listed first of " << count << ": " << wrong_first << " of them not clear of the border, "
                << wrong_later << " later ones clear of it; " << near << " at the limit");
    CHECK(wrong_first == 0);
    CHECK(wrong_later == 0);
    CHECK(inside > 0);
    CHECK(inside < count);  // both kinds are there
  }

  TEST_CASE(
      "the point list holds the keypoints clear of the border first; last_on_gpu pairs entries and angles") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    const std::vector<KeyPoint> detected = detector.detect(image);
    check_inside_first(detector, image, static_cast<int>(detected.size()));
    // The same with a selection of the strongest, which the compaction also
    // partitions.
    DetectorConfig strongest;
    strongest.max_features = 300;
    GpuDetector selecting(test::headless_context(), strongest);
    selecting.detect(image);
    check_inside_first(selecting, image, selecting.last_on_gpu().count);

    const Features f = detector.detect_and_compute(image);
    const GpuDetector::OnGpu on_gpu = detector.last_on_gpu();
    REQUIRE(on_gpu.angles != nullptr);
    REQUIRE(on_gpu.count == static_cast<int>(f.keypoints.size()));
    check_inside_first(detector, image, on_gpu.count);
    const std::vector<float> list = on_gpu.list->download_f32(), angles = on_gpu.angles->download_f32();
    int found = 0;
    for (int i = 0; i < on_gpu.count; ++i) {
      const float* e = &list[4 * static_cast<size_t>(i)];
      for (const KeyPoint& m : f.keypoints) {
        if (m.x == e[0] && m.y == e[1] && m.size == std::abs(e[2]) &&
            m.angle == angles[static_cast<size_t>(i)]) {
          ++found;
          break;
        }
      }
    }
    INFO(found << " of " << on_gpu.count << " list entries found with their angle");
    CHECK(found == on_gpu.count);
  }

}  // TEST_SUITE
