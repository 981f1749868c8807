// GPU orientation against the CPU reference (OrientationStage and the
// clipping-free orientation samples, second orientations, more than one
// orientation chunk), and orientations under rotations of the image.
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
// (10 beyond 0.05). With second orientations, every GPU entry (keypoint and
// angle) has a CPU counterpart within 0.5 degrees, and the other way round,
// for >= 99 %, RMS <= 0.01 degrees over the pairs. Under rotations by 30, 90
// and 180 degrees >= 90 % of the repeated points turn within 3 degrees.
// (compare() in describe_support.hpp checks the descriptors of the same
// keypoints as well, with test_gpu_descriptor.cpp's tolerances.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "describe_support.hpp"
#include "gl/error.hpp"
#include "io/warp.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

using namespace glsurf;
using test::compare;
using test::detect_and_compute_both;
using test::dot;
using test::pair_up;

namespace {

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
