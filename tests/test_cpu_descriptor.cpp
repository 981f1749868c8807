// The CPU reference orientation and descriptor: hand-made edges, unit
// length, invariance to affine intensity changes, exact 90 / 180 degree
// rotations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

// Counter-clockwise rotation by 90 degrees on screen: (x, y) -> (y, W - 1 - x).
GrayImage rotate90(const GrayImage& in) {
  GrayImage out(in.height, in.width);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) out.at(x, y) = in.at(in.width - 1 - y, x);
  return out;
}

double angle_difference(double a, double b) { return std::abs(std::remainder(a - b, 360.0)); }

// The integral-image coordinates that the GPU's orientation samples read
// along x for keypoint k, as its float32 arithmetic finds them
// (shaders/orientation/samples.frag, cross_gradient in
// shaders/common/haar.glsl): each box mean takes the aligned boxes at whole
// corners o and o + 1, so coordinates o .. o + w + 1 for a box side w along
// the axis, with o the floor of the box's pixel-edge corner, over every
// lattice point, both shifts and both of the cross's sides.
// (Along y the same with k.y.)
void gpu_orientation_span(float x, float size, int& lo, int& hi) {
  const float s = 1.2f * size / 9.0f;
  const float base = std::floor(x);
  const int h = std::max(2, static_cast<int>(std::floor(2.0f * s + 0.5f)));  // common/sides.glsl
  const cpu::OrientationCross cross = cpu::orientation_cross(h / 2.0);       // whose h is this one
  const float step = static_cast<float>(cpu::kOrientationStep) * s;
  const float d = static_cast<float>(cpu::kOrientationOffset) * s;
  lo = std::numeric_limits<int>::max();
  hi = std::numeric_limits<int>::min();
  for (const cpu::LatticePoint& p : cpu::kOrientationLattice) {
    for (const int i : {p.i, p.j}) {  // a lattice coordinate, either axis
      for (const int w : {cross.long_side, cross.short_side}) {
        const float e = (x - base) + step * static_cast<float>(i) - static_cast<float>(w) * 0.5f + 0.5f;
        for (const float shift : {-d, 0.0f, d}) {
          const int o = static_cast<int>(base) + static_cast<int>(std::floor(e + shift));
          lo = std::min(lo, o);
          hi = std::max(hi, o + w + 1);
        }
      }
    }
  }
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("orientation of straight edges, by hand") {
    // Dark left, bright right: the gradient points along +x, angle 0.
    GrayImage step(101, 101, 0);
    for (int y = 0; y < 101; ++y)
      for (int x = 51; x < 101; ++x) step.at(x, y) = 200;
    KeyPoint k;
    k.x = 50;
    k.y = 50;
    k.size = 20;
    const cpu::IntegralImage s = cpu::integral_image(step);
    CHECK(angle_difference(cpu::orientation(s, k).angle, 0.0) < 0.01);
    // Bright below: the gradient points down the image, i.e. clockwise on screen: 270.
    GrayImage below(101, 101, 0);
    for (int y = 51; y < 101; ++y)
      for (int x = 0; x < 101; ++x) below.at(x, y) = 200;
    CHECK(angle_difference(cpu::orientation(cpu::integral_image(below), k).angle, 270.0) < 0.01);
  }

  TEST_CASE("a second orientation where two edges cross, by hand") {
    // Bright right (contrast a) plus bright below (contrast b): the gradients
    // point along +x on the vertical edge, angle 0, and along +y on the
    // horizontal one, 270 on screen. The window sums peak near each (90
    // degrees apart, beyond the window's pi/3 reach), in the ratio of the
    // contrasts but for the samples near the crossing, whose gradient
    // (a, b) counts towards both and pulls each peak towards the other (by
    // about 6 degrees here).
    const auto crossing = [](int a, int b) {
      GrayImage image(101, 101, 0);
      for (int y = 0; y < 101; ++y)
        for (int x = 0; x < 101; ++x)
          image.at(x, y) = static_cast<std::uint8_t>((x > 50 ? a : 0) + (y > 50 ? b : 0));
      return cpu::integral_image(image);
    };
    KeyPoint k;
    k.x = 50;
    k.y = 50;
    k.size = 20;
    // Equal contrasts: the image is its own mirror image across the diagonal
    // through the keypoint, which swaps the two directions, so the angles are
    // mirror images too: they add up to 270 degrees (0 + 270).
    const cpu::Orientation equal = cpu::orientation(crossing(100, 100), k, false, 0.8);
    INFO("equal contrasts: " << equal.angle << ", " << equal.second_angle);
    REQUIRE(equal.second_angle >= 0);
    CHECK(angle_difference(equal.angle + equal.second_angle, 270.0) < 0.01);
    CHECK(std::min(angle_difference(equal.angle, 0.0), angle_difference(equal.angle, 270.0)) < 10.0);
    const cpu::Orientation both = cpu::orientation(crossing(100, 95), k, false, 0.8);
    INFO("contrasts 100, 95: " << both.angle << ", " << both.second_angle);
    CHECK(angle_difference(both.angle, 0.0) < 10.0);
    CHECK(angle_difference(both.second_angle, 270.0) < 10.0);
    // The same edges with the contrasts swapped swap the two orientations.
    const cpu::Orientation swapped = cpu::orientation(crossing(95, 100), k, false, 0.8);
    CHECK(angle_difference(swapped.angle, 270.0) < 10.0);
    CHECK(angle_difference(swapped.second_angle, 0.0) < 10.0);
    // A weaker second edge: below the ratio 0.8, above 0.5 (its peak is about
    // 0.6 of the first; at contrast 60 it is under 0.5: the samples
    // near the crossing count towards the stronger edge's peak).
    CHECK(cpu::orientation(crossing(100, 70), k, false, 0.8).second_angle == -1.0f);
    CHECK(angle_difference(cpu::orientation(crossing(100, 70), k, false, 0.5).second_angle, 270.0) < 10.0);
    // One edge has a single peak, however low the ratio; none is sought at 0.
    CHECK(cpu::orientation(crossing(100, 0), k, false, 0.01).second_angle == -1.0f);
    CHECK(cpu::orientation(crossing(100, 95), k).second_angle == -1.0f);
  }

  TEST_CASE("orientation of oblique straight edges, anti-aliased, within 0.15 degrees") {
    // A straight edge through the centre whose normal points `degrees`
    // counter-clockwise on screen, each pixel 200 x its covered area (16 x 16
    // sub-samples). The cross's gradients differentiate one smoothed image, so
    // only the finite difference offset and the rasterisation make them err:
    // at most 0.05 degrees here at sizes 12, 20 and 40 (0.13 at size 14). The
    // square box the orientation smoothed with before the cross erred up to
    // 0.30 degrees at size 12 (side 3), and SURF's Haar pair 0.4 to 0.7.
    for (const double degrees : {10.0, 30.0, 60.0, 100.0, 200.0}) {
      const double r = degrees * 3.14159265358979323846 / 180.0, nx = std::cos(r), ny = -std::sin(r);
      GrayImage edge(201, 201, 0);
      for (int y = 0; y < 201; ++y) {
        for (int x = 0; x < 201; ++x) {
          int covered = 0;
          for (int b = 0; b < 16; ++b)
            for (int a = 0; a < 16; ++a)
              covered += (x - 100.5 + (a + 0.5) / 16) * nx + (y - 100.5 + (b + 0.5) / 16) * ny > 0;
          edge.at(x, y) = static_cast<std::uint8_t>(std::lround(200.0 * covered / 256));
        }
      }
      const cpu::IntegralImage s = cpu::integral_image(edge);
      for (const float size : {12.0f, 20.0f, 40.0f}) {
        KeyPoint k;
        k.x = 100;
        k.y = 100;
        k.size = size;
        INFO(degrees << " degrees, size " << size);
        CHECK(angle_difference(cpu::orientation(s, k).angle, degrees) < 0.15);
      }
    }
  }

  TEST_CASE("descriptors have unit length and 64 or 128 values") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      std::vector<KeyPoint> ks = cpu::detect(image, config);
      const std::vector<float> d = cpu::describe_all(cpu::integral_image(image), ks, config);
      const size_t n = extended ? 128 : 64;
      REQUIRE(d.size() == ks.size() * n);
      for (size_t i = 0; i < ks.size(); ++i) {
        double norm = 0;
        for (size_t j = 0; j < n; ++j) norm += d[i * n + j] * d[i * n + j];
        REQUIRE(std::abs(norm - 1.0) < 1e-5);
      }
    }
  }

  TEST_CASE("angles lie in [0, 360), also where a direction rounds to 360 in float") {
    // Rings about the centre: their symmetric keypoints point along the image
    // axes, where a direction a hair below 360 degrees in double became 360.0f
    // (two keypoints here did, before the range was checked after rounding).
    GrayImage rings(256, 256);
    for (int y = 0; y < 256; ++y)
      for (int x = 0; x < 256; ++x) {
        const double v = 128 + 127 * std::cos(0.7 * std::hypot(x - 128.0, y - 128.0));
        rings.at(x, y) = static_cast<std::uint8_t>(std::clamp(static_cast<int>(v), 0, 255));
      }
    DetectorConfig config;
    config.hessian_threshold = 0;
    const Features f = cpu::detect_and_compute(rings, config);
    REQUIRE(f.keypoints.size() > 100);
    int outside = 0;
    for (const KeyPoint& k : f.keypoints) outside += !(k.angle >= 0.0f && k.angle < 360.0f);
    CHECK(outside == 0);
  }

  TEST_CASE("descriptors do not change under I -> a I + b") {
    // Halve a photo, then K = 2 J + 10: integers throughout, no clipping.
    GrayImage j = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    for (auto& p : j.pixels) p = static_cast<std::uint8_t>(p / 2);
    GrayImage k = j;
    for (auto& p : k.pixels) p = static_cast<std::uint8_t>(2 * p + 10);
    DetectorConfig config;
    config.hessian_threshold = 25;  // det scales by a^2 = 4: 25 on J is 100 on K
    std::vector<KeyPoint> kj = cpu::detect(j, config), kk = kj;
    const std::vector<float> dj = cpu::describe_all(cpu::integral_image(j), kj, config);
    const std::vector<float> dk = cpu::describe_all(cpu::integral_image(k), kk, config);
    REQUIRE(kj.size() > 100);
    int same = 0;
    for (size_t i = 0; i < kj.size(); ++i) {
      double dot = 0;
      for (size_t m = 0; m < 64; ++m) dot += dj[i * 64 + m] * dk[i * 64 + m];
      same += dot >= 0.999 && angle_difference(kj[i].angle, kk[i].angle) < 1e-3;
    }
    CHECK(same == static_cast<int>(kj.size()));
  }

  TEST_CASE("an exact 90-degree rotation turns orientations by 90 and keeps descriptors") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    const GrayImage turned = rotate90(image);
    DetectorConfig config;
    std::vector<KeyPoint> a = cpu::detect(image, config);
    const std::vector<float> da = cpu::describe_all(cpu::integral_image(image), a, config);
    std::vector<KeyPoint> b = cpu::detect(turned, config);
    const std::vector<float> db = cpu::describe_all(cpu::integral_image(turned), b, config);
    // Repeated points: a keypoint of b within 0.5 px of a's rotated position and 2 % in size.
    int repeated = 0, turned_by_90 = 0, matched = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const double x = a[i].y, y = image.width - 1 - a[i].x;
      size_t partner = b.size();
      for (size_t m = 0; m < b.size(); ++m) {
        if (std::hypot(b[m].x - x, b[m].y - y) < 0.5 && std::abs(b[m].size - a[i].size) < 0.02 * a[i].size) {
          partner = m;
          break;
        }
      }
      if (partner == b.size()) continue;
      ++repeated;
      turned_by_90 += angle_difference(b[partner].angle, a[i].angle + 90.0) < 3.0;
      // Nearest descriptor of b to a's is the partner.
      double best = 1e30;
      size_t nearest = 0;
      for (size_t m = 0; m < b.size(); ++m) {
        double d2 = 0;
        for (size_t c = 0; c < 64; ++c)
          d2 += (da[i * 64 + c] - db[m * 64 + c]) * (da[i * 64 + c] - db[m * 64 + c]);
        if (d2 < best) best = d2, nearest = m;
      }
      matched += nearest == partner;
    }
    INFO(a.size() << " keypoints, " << repeated << " repeated, " << turned_by_90 << " turned by 90, "
                  << matched << " matched");
    REQUIRE(repeated > 0.5 * a.size());
    CHECK(turned_by_90 >= 0.9 * repeated);
    CHECK(matched >= 0.8 * repeated);
  }

  TEST_CASE("compute() describes given keypoints as detect_and_compute describes its own") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    for (const bool upright : {false, true}) {
      DetectorConfig config;
      config.upright = upright;
      const Features detected = cpu::detect_and_compute(image, config);
      std::vector<KeyPoint> given = detected.keypoints;
      for (KeyPoint& k : given) k.angle = 123;   // recomputed, not kept
      std::reverse(given.begin(), given.end());  // the order is the caller's
      const Features f = cpu::compute(image, given, config);
      REQUIRE(f.keypoints.size() == detected.keypoints.size());
      REQUIRE(f.descriptor_size == 64);
      const size_t n = f.keypoints.size();
      int same = 0;
      for (size_t i = 0; i < n; ++i) {
        const KeyPoint &a = f.keypoints[i], &b = detected.keypoints[n - 1 - i];
        same += a.x == b.x && a.y == b.y && a.size == b.size && a.response == b.response &&
                a.octave == b.octave && a.laplacian == b.laplacian && a.angle == b.angle &&
                std::equal(f.descriptor(i), f.descriptor(i) + 64, detected.descriptor(n - 1 - i));
      }
      CHECK(same == static_cast<int>(n));
    }
  }

  TEST_CASE("compute() with Angles::Keep describes at the given angles: second orientations again") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    DetectorConfig config;
    config.second_orientation = 0.8f;
    const Features detected = cpu::detect_and_compute(image, config);
    const size_t n = detected.keypoints.size();
    size_t second = 0;  // entries at the position of the entry before: a point's second orientation
    for (size_t i = 1; i < n; ++i) {
      second += detected.keypoints[i].x == detected.keypoints[i - 1].x &&
                detected.keypoints[i].y == detected.keypoints[i - 1].y;
    }
    REQUIRE(second * 10 >= n);
    std::vector<KeyPoint> given = detected.keypoints;
    std::reverse(given.begin(), given.end());
    const Features kept = cpu::compute(image, given, config, Angles::Keep);
    REQUIRE(kept.keypoints.size() == n);
    int same = 0;
    for (size_t i = 0; i < n; ++i) {
      const KeyPoint &a = kept.keypoints[i], &b = detected.keypoints[n - 1 - i];
      same += a.x == b.x && a.y == b.y && a.size == b.size && a.angle == b.angle &&
              std::equal(kept.descriptor(i), kept.descriptor(i) + 64, detected.descriptor(n - 1 - i));
    }
    CHECK(same == static_cast<int>(n));
    // Computed instead, a point's second entry gets its first angle.
    const Features computed = cpu::compute(image, detected.keypoints, config);
    size_t moved = 0;
    for (size_t i = 0; i < n; ++i) moved += computed.keypoints[i].angle != detected.keypoints[i].angle;
    CHECK(moved == second);  // the first entries' angles are computed again as before
  }

  TEST_CASE("kept angles lie in [0, 360], and upright descriptors keep none") {
    KeyPoint k;
    k.x = 10, k.y = 10, k.size = 9;
    for (const float angle : {0.0f, 123.4f, 360.0f}) {
      k.angle = angle;
      CHECK(cpu::keypoint_problem(k, 64, 48, Angles::Keep).empty());
    }
    for (const float angle : {-1.0f, 360.5f, std::nanf(""), std::numeric_limits<float>::infinity()}) {
      k.angle = angle;
      CHECK(cpu::keypoint_problem(k, 64, 48).empty());  // computed: the angle does not matter
      CHECK(cpu::keypoint_problem(k, 64, 48, Angles::Keep).find("is not in [0, 360]") != std::string::npos);
    }
    k.angle = -1;  // OpenCV's "no angle"
    CHECK_THROWS_WITH_AS(cpu::compute(GrayImage(64, 48, 0), {k, k}, DetectorConfig{}, Angles::Keep),
                         doctest::Contains("keypoint 0: angle -1 is not in [0, 360]"), Error);
    DetectorConfig upright;
    upright.upright = true;
    CHECK(cpu::angles_problem(upright, Angles::Compute).empty());
    CHECK(cpu::angles_problem(DetectorConfig{}, Angles::Keep).empty());
    k.angle = 0;
    CHECK_THROWS_WITH_AS(cpu::compute(GrayImage(64, 48, 0), {k}, upright, Angles::Keep),
                         doctest::Contains("upright descriptors are taken at angle 0"), Error);
  }

  TEST_CASE("descriptors and orientations of linear ramps follow from SURF's definition") {
    test::check_ramp_descriptors([](const GrayImage& image, const std::vector<KeyPoint>& k,
                                    const DetectorConfig& config) { return cpu::compute(image, k, config); },
                                 1e-6);
  }

  TEST_CASE("a keypoint on a flat patch has angle 0 and a zero descriptor") {
    // No gradient anywhere: no direction to choose and nothing to describe.
    const GrayImage flat(64, 48, 77);
    const std::vector<KeyPoint> given = test::flat_patch_keypoints();
    for (const bool extended : {false, true}) {
      DetectorConfig config;
      config.extended = extended;
      const Features f = cpu::compute(flat, given, config);
      int zero = 0;
      for (size_t i = 0; i < given.size(); ++i) {
        const float* d = f.descriptor(i);
        zero += f.keypoints[i].angle == 0.0f &&
                std::all_of(d, d + f.descriptor_size, [](float v) { return v == 0.0f; });
      }
      CHECK(zero == static_cast<int>(given.size()));
    }
  }

  TEST_CASE("compute() refuses keypoints outside the image or of no size, naming them") {
    KeyPoint inside;
    inside.x = -0.5f;
    inside.y = 47.5f;
    inside.size = cpu::kMaxKeypointSize;
    CHECK(cpu::keypoint_problem(inside, 64, 48).empty());
    const auto problem = [](float x, float y, float size) {
      KeyPoint k;
      k.x = x;
      k.y = y;
      k.size = size;
      return cpu::keypoint_problem(k, 64, 48);
    };
    CHECK(problem(-0.51f, 10, 9).find("outside the 64 x 48 image") != std::string::npos);
    CHECK(problem(10, 47.6f, 9).find("outside") != std::string::npos);
    CHECK(problem(63.6f, 10, 9).find("outside") != std::string::npos);
    CHECK(problem(10, 10, 0).find("size 0 is not in [1, 7680]") != std::string::npos);
    CHECK(problem(10, 10, 0.99f).find("size 0.99 is not in [1, 7680]") != std::string::npos);
    CHECK(problem(10, 10, 1e-30f).find("size") !=
          std::string::npos);  // the GPU's float32 gave NaN descriptors
    CHECK(problem(10, 10, 1).empty());
    CHECK(problem(10, 10, -3).find("size") != std::string::npos);
    CHECK(problem(10, 10, 15001).find("size") != std::string::npos);
    CHECK(problem(std::nanf(""), 10, 9).find("finite") != std::string::npos);
    CHECK(problem(10, 10, std::numeric_limits<float>::infinity()).find("finite") != std::string::npos);
    std::vector<KeyPoint> given(3, inside);
    given[2].x = 100;
    CHECK_THROWS_WITH_AS(cpu::compute(GrayImage(64, 48, 0), given, DetectorConfig{}),
                         doctest::Contains("keypoint 2: (100, 47.5) is outside"), Error);
  }

  // The GPU takes the orientation samples of the keypoints that
  // orientation_inside accepts without clipping their boxes, so it must accept
  // none whose boxes reach past the image (checked with a pixel to spare
  // beyond its need), and should accept nearly every one whose boxes fit.
  TEST_CASE(
      "orientation_inside accepts a keypoint only when every orientation box lies inside, and nearly all "
      "such") {
    const int width = 400, height = 300;
    for (const float size : {1.0f, 5.0f, 9.0f, 12.7f, 20.0f, 33.3f, 51.0f, 99.0f, 120.0f, 250.0f}) {
      CAPTURE(size);
      for (const bool along_x : {true, false}) {
        CAPTURE(along_x);
        // Across the image along one axis, in the middle of the other.
        float first_fit = -1, first_inside = -1, last_fit = -1, last_inside = -1;
        for (float t = -0.5f; t <= (along_x ? width : height) - 0.5f; t += 0.03125f) {
          KeyPoint k;
          k.size = size;
          k.x = along_x ? t : 0.5f * width;
          k.y = along_x ? 0.5f * height : t;
          int lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
          gpu_orientation_span(k.x, size, lo_x, hi_x);
          gpu_orientation_span(k.y, size, lo_y, hi_y);
          const bool fits = lo_x >= 0 && hi_x <= width && lo_y >= 0 && hi_y <= height;
          const bool inside = cpu::orientation_inside(k, width, height);
          if (inside) {
            CAPTURE(t);
            CHECK(lo_x >= 1);
            CHECK(hi_x <= width - 1);
            CHECK(lo_y >= 1);
            CHECK(hi_y <= height - 1);
          }
          if (fits && first_fit < 0) first_fit = t;
          if (fits) last_fit = t;
          if (inside && first_inside < 0) first_inside = t;
          if (inside) last_inside = t;
        }
        if (first_fit < 0) {  // boxes too large for the image (size 250: about 490 pixels across)
          CHECK(first_inside < 0);
          continue;
        }
        REQUIRE(first_inside >= 0);
        CHECK(first_inside - first_fit <= 4.0f);
        CHECK(last_fit - last_inside <= 4.0f);
      }
    }
  }

}  // TEST_SUITE
