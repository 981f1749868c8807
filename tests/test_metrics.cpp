// Evaluation metrics on hand-built cases whose values are worked out by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "eval/metrics.hpp"

using namespace glsurf;

namespace {

KeyPoint at(double x, double y, double size) {
  KeyPoint k;
  k.x = static_cast<float>(x);
  k.y = static_cast<float>(y);
  k.size = static_cast<float>(size);
  return k;
}

const Homography kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

// 1 - intersection / union of two circles (centres d apart, radii r1, r2), in
// closed form: the reference the ellipse overlap is checked against.
double circle_overlap_error(double d, double r1, double r2) {
  const double small = std::min(r1, r2), large = std::max(r1, r2);
  double both = 0;
  if (d >= r1 + r2) return 1.0;
  if (d <= large - small) {
    both = M_PI * small * small;
  } else {
    const double a1 = std::acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1));
    const double a2 = std::acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2));
    both = r1 * r1 * (a1 - std::sin(2 * a1) / 2) + r2 * r2 * (a2 - std::sin(2 * a2) / 2);
  }
  return 1.0 - both / (M_PI * r1 * r1 + M_PI * r2 * r2 - both);
}

Ellipse circle(double x, double y, double r) { return Ellipse{x, y, 1 / (r * r), 0, 1 / (r * r)}; }

// Semi-axes p along the direction at `angle` (radians) and q across it.
Ellipse ellipse(double x, double y, double p, double q, double angle) {
  const double c = std::cos(angle), s = std::sin(angle), u = 1 / (p * p), v = 1 / (q * q);
  return Ellipse{x, y, u * c * c + v * s * s, (u - v) * c * s, u * s * s + v * c * c};
}

void check_same(const Ellipse& e, const Ellipse& expected) {
  CHECK(e.x == doctest::Approx(expected.x));
  CHECK(e.y == doctest::Approx(expected.y));
  CHECK(e.a == doctest::Approx(expected.a));
  CHECK(e.b == doctest::Approx(expected.b).scale(expected.a));
  CHECK(e.c == doctest::Approx(expected.c));
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("corner error: worked by hand, and undefined where the truth sends A to infinity") {
    // A 101 x 51 image; the estimate moves everything by (3, 4): 5 px at every corner.
    const Homography moved = {1, 0, 3, 0, 1, 4, 0, 0, 1};
    CHECK(corner_error(moved, kIdentity, 101, 51) == doctest::Approx(5.0));
    // Scaling about the origin by 1.1 against the identity: the far corner (100, 50) moves most.
    const Homography scaled = {1.1, 0, 0, 0, 1.1, 0, 0, 0, 1};
    CHECK(corner_error(scaled, kIdentity, 101, 51) == doctest::Approx(0.1 * std::hypot(100.0, 50.0)));
    // -H is the same map as H, also as the truth.
    const Homography minus = {-1, 0, 0, 0, -1, 0, 0, 0, -1};
    CHECK(corner_error(moved, minus, 101, 51) == doctest::Approx(5.0));
    // w = 1 - x / 50 is 0 at x = 50 and negative beyond: a truth whose horizon
    // crosses A gives no corner error (NaN), not a number.
    const Homography horizon = {1, 0, 0, 0, 1, 0, -0.02, 0, 1};
    CHECK(std::isnan(corner_error(kIdentity, horizon, 101, 51)));
    // As an estimate it is merely wrong: (100, 50) goes to (-100, -50).
    CHECK(corner_error(horizon, kIdentity, 101, 51) == doctest::Approx(std::hypot(200.0, 100.0)));
    // A corner exactly on the horizon (w = 0): no corner error as the truth,
    // an infinite one as the estimate.
    const Homography edge = {1, 0, 0, 0, 1, 0, -0.01, 0, 1};  // w = 0 at x = 100
    CHECK(std::isnan(corner_error(kIdentity, edge, 101, 51)));
    CHECK(std::isinf(corner_error(edge, kIdentity, 101, 51)));
  }

  TEST_CASE("ellipse overlap error of circles, worked by hand") {
    CHECK(ellipse_overlap_error(circle(5, 7, 10), circle(5, 7, 10)) == doctest::Approx(0.0));
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(25, 0, 10)) == doctest::Approx(1.0));
    // Concentric radii 10 and 20: 1 - 100 pi / 400 pi, either way round.
    CHECK(ellipse_overlap_error(circle(3, 4, 10), circle(3, 4, 20)) == doctest::Approx(0.75));
    CHECK(ellipse_overlap_error(circle(3, 4, 20), circle(3, 4, 10)) == doctest::Approx(0.75));
    // Equal radii r = 10 at distance 10: lens 2 r^2 acos(1/2) - 5 sqrt(300).
    const double lens = 200 * std::acos(0.5) - 5 * std::sqrt(300.0);
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(6, 8, 10)) ==
          doctest::Approx(1 - lens / (200 * M_PI - lens)).epsilon(1e-9));
    // Against the closed form at many distances and radii (one inside the
    // other, crossing, apart), in any direction.
    for (double d = 0; d < 32; d += 0.7)
      for (double r2 : {3.0, 9.5, 10.0, 14.0, 22.0}) {
        const double angle = 0.3 * d;
        const Ellipse other = circle(50 + d * std::cos(angle), 50 + d * std::sin(angle), r2);
        const double e = ellipse_overlap_error(circle(50, 50, 10), other);
        CHECK(e == doctest::Approx(circle_overlap_error(d, 10, r2)).epsilon(1e-9));
      }
  }

  TEST_CASE("ellipse overlap error of ellipses, worked by hand") {
    // Semi-axes 20 and 5 inside the concentric circle of radius 20: the
    // intersection is the ellipse (100 pi), the union the circle (400 pi).
    CHECK(ellipse_overlap_error(ellipse(0, 0, 20, 5, 0.4), circle(0, 0, 20)) == doctest::Approx(0.75));
    // Two congruent ellipses, semi-axes a = 20 and b = 10, crossed at right
    // angles about one centre: the intersection is 4 a b atan(b / a), the
    // union 2 pi a b less that. The same turned by 45 degrees (M then has a
    // cross term).
    const double both = 800 * std::atan(0.5), crossed = 1 - both / (400 * M_PI - both);
    CHECK(ellipse_overlap_error(ellipse(0, 0, 20, 10, 0), ellipse(0, 0, 20, 10, M_PI / 2)) ==
          doctest::Approx(crossed));
    CHECK(ellipse_overlap_error(ellipse(7, -3, 20, 10, M_PI / 4), ellipse(7, -3, 20, 10, 3 * M_PI / 4)) ==
          doctest::Approx(crossed));
    // A circle of radius 10 and the concentric ellipse of the same area with
    // semi-axes 10 sqrt(3) and 10 / sqrt(3): they cross at polar angle 30
    // degrees from the long axis; a quadrant of the intersection is the
    // circle's sector up to there and the ellipse's beyond, 25 pi / 3 twice
    // (an ellipse's sector from its long axis to polar angle t is
    // (a b / 2) atan((a / b) tan t)): 200 pi / 3 in all, the union 400 pi / 3,
    // so the error is 1/2.
    CHECK(ellipse_overlap_error(circle(0, 0, 10), ellipse(0, 0, 10 * std::sqrt(3.0), 10 / std::sqrt(3.0),
                                                          1.0)) == doctest::Approx(0.5));
    // Nearly touching from inside (a circle of radius 1 whose edge is 0.002
    // from the other's: 1 - 1/100) and from outside, diagonally, so that the
    // bounding boxes overlap and the crossing search runs (centres 20.011
    // apart: no crossing, error 1).
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(8.998, 0, 1)) == doctest::Approx(0.99));
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(14.15, 14.15, 10)) == doctest::Approx(1.0));
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(14.1, 14.1, 10)) < 1.0);
  }

  TEST_CASE("regions mapped by a homography, worked by hand") {
    Ellipse e;
    // A pure scale by 2: the circle of radius 5 about (10, 10) becomes the one
    // of radius 10 about (20, 20).
    REQUIRE(project_region(circle(10, 10, 5), {2, 0, 0, 0, 2, 0, 0, 0, 1}, e));
    check_same(e, circle(20, 20, 10));
    // x scaled by 3, y kept: semi-axes 15 along x, 5 along y.
    REQUIRE(project_region(circle(10, 10, 5), {3, 0, 0, 0, 1, 0, 0, 0, 1}, e));
    check_same(e, ellipse(30, 10, 15, 5, 0));
    // A rotation by 90 degrees turns the ellipse with it.
    REQUIRE(project_region(ellipse(10, 0, 8, 2, 0), {0, -1, 0, 1, 0, 0, 0, 0, 1}, e));
    check_same(e, ellipse(0, 10, 8, 2, M_PI / 2));
    // A tilt, w = 1 + x / 100: at (100, 0), w = 2 and the Jacobian is
    // diag(1 / w^2, 1 / w): the circle of radius 8 becomes semi-axes 2 along
    // x and 4 along y about (50, 0).
    REQUIRE(project_region(circle(100, 0, 8), {1, 0, 0, 0, 1, 0, 0.01, 0, 1}, e));
    check_same(e, ellipse(50, 0, 2, 4, 0));
    // On the horizon the region has no image.
    CHECK(!project_region(circle(-100, 0, 8), {1, 0, 0, 0, 1, 0, 0.01, 0, 1}, e));
    // The bounding box: semi-axes 20 and 5 along the axes, then turned 90 degrees.
    double hw, hh;
    ellipse_half_extents(ellipse(0, 0, 20, 5, 0), hw, hh);
    CHECK(hw == doctest::Approx(20));
    CHECK(hh == doctest::Approx(5));
    ellipse_half_extents(ellipse(0, 0, 20, 5, M_PI / 2), hw, hh);
    CHECK(hw == doctest::Approx(5));
    CHECK(hh == doctest::Approx(20));
    CHECK(ellipse_area(ellipse(0, 0, 20, 5, 0.3)) == doctest::Approx(100 * M_PI));
  }

  TEST_CASE("repeatability counts one-to-one correspondences among visible points") {
    // A: three keypoints; B: the first two again (one slightly off), plus one elsewhere.
    const std::vector<KeyPoint> a = {at(20, 20, 20), at(60, 60, 20), at(85, 85, 20)};
    const std::vector<KeyPoint> b = {at(20, 20, 20), at(61, 60, 20), at(40, 80, 20)};
    const PairScore s = score_keypoints(a, b, kIdentity, 100, 100, 100, 100);
    CHECK(s.visible_a == 3);
    CHECK(s.visible_b == 3);
    // (20,20): error 0. (60,60)-(61,60): radius 10 scaled to 30, distance 1: error
    // 1 - lens/union, under 40 %. (85,85) has no partner.
    CHECK(s.correspondences == 2);
    CHECK(s.repeatability == doctest::Approx(2.0 / 3.0));
    // One keypoint of B near two of A: it corresponds to one only, the closer.
    const PairScore one =
        score_keypoints({at(50, 50, 20), at(51, 50, 20)}, {at(50.8, 50, 20)}, kIdentity, 100, 100, 100, 100);
    CHECK(one.correspondences == 1);
    CHECK(one.repeatability == doctest::Approx(1.0));
  }

  TEST_CASE("regions are rescaled to radius 30 about their centres, the centre distance is not") {
    // Size 9 (radius 4.5), 2 px apart: unscaled the overlap error is 1 - 0.56 =
    // 0.44 (no correspondence); rescaled to radius 30 and still 2 px apart,
    // two circles of radius 30 whose error is about 0.08.
    const PairScore small = score_keypoints({at(50, 50, 9)}, {at(52, 50, 9)}, kIdentity, 100, 100, 100, 100);
    CHECK(small.correspondences == 1);
    CHECK(normalised_overlap_error(circle(50, 50, 4.5), circle(52, 50, 4.5)) ==
          doctest::Approx(0.0814).epsilon(0.001));
    // Size 200 (radius 100), 30 px apart: unscaled the error is about 0.32; at
    // radius 30 the circles are 30 px apart, error about 0.76 (none).
    const PairScore large =
        score_keypoints({at(500, 500, 200)}, {at(530, 500, 200)}, kIdentity, 1000, 1000, 1000, 1000);
    CHECK(large.correspondences == 0);
    CHECK(normalised_overlap_error(circle(500, 500, 100), circle(530, 500, 100)) ==
          doctest::Approx(0.7570).epsilon(0.001));
    // The scale comes from A's region: B's keeps its size relative to A's.
    CHECK(normalised_overlap_error(circle(0, 0, 5), circle(0, 0, 10)) == doctest::Approx(0.75));
    CHECK(ellipse_overlap_error(circle(0, 0, 10), circle(30.0, 0, 10)) == doctest::Approx(1.0));
  }

  TEST_CASE("regions are ellipses: an anisotropic map separates what circles of equal area would match") {
    // x stretched 3 times. A's circle of radius 10 at (30, 50) and B's circle of
    // radius 10 sqrt(3) at its image (90, 50): mapped back into A, B's is the
    // ellipse of semi-axes 10 / sqrt(3) along x and 10 sqrt(3) along y, of A's
    // area; as a circle scaled by sqrt(det J) it would be A's circle exactly.
    const Homography stretch = {3, 0, 0, 0, 1, 0, 0, 0, 1};
    const PairScore s =
        score_keypoints({at(30, 50, 20)}, {at(90, 50, 20 * std::sqrt(3.0))}, stretch, 100, 100, 200, 100);
    CHECK(s.visible_a == 1);
    CHECK(s.visible_b == 1);
    CHECK(s.correspondences == 0);  // overlap error 1/2 (worked above)
    Ellipse mapped;
    REQUIRE(project_region(keypoint_region(at(90, 50, 20 * std::sqrt(3.0))), inverse(stretch), mapped));
    CHECK(normalised_overlap_error(circle(30, 50, 10), mapped) == doctest::Approx(0.5));
    // Stretched 1.5 times the error is under 40 %: a correspondence.
    const Homography mild = {1.5, 0, 0, 0, 1, 0, 0, 0, 1};
    const PairScore close =
        score_keypoints({at(30, 50, 20)}, {at(45, 50, 20 * std::sqrt(1.5))}, mild, 100, 100, 200, 100);
    CHECK(close.correspondences == 1);
  }

  TEST_CASE("only keypoints whose regions lie in the common part are visible") {
    // B is A shifted 50 px right. Regions of radius 10.
    const Homography shift = {1, 0, 50, 0, 1, 0, 0, 0, 1};
    // A: (15,50) -> (65,50) and (35,50) -> (85,50) lie in B with their regions;
    // (45,50) -> (95,50) has its centre in B but its region past B's edge;
    // (80,50) -> (130,50) is outside; (5,50)'s region leaves A itself.
    const std::vector<KeyPoint> a = {at(15, 50, 20), at(35, 50, 20), at(45, 50, 20), at(80, 50, 20),
                                     at(5, 50, 20)};
    // B: (65,50) and (85,50) map back to (15,50) and (35,50); (95,50)'s own
    // region leaves B, though its image (45,50) lies in A with its region (which
    // cv::evaluateFeatureDetector counts); (55,50) maps back to (5,50), whose
    // region leaves A; (20,50) maps to x < 0.
    const std::vector<KeyPoint> b = {at(65, 50, 20), at(85, 50, 20), at(95, 50, 20), at(55, 50, 20),
                                     at(20, 50, 20)};
    const PairScore s = score_keypoints(a, b, shift, 100, 100, 100, 100);
    CHECK(s.visible_a == 2);
    CHECK(s.visible_b == 2);
    CHECK(s.correspondences == 2);
    CHECK(s.repeatability == doctest::Approx(1.0));
    // The frame is the open (0, width) x (0, height): a box touching 0 or the
    // width is out.
    CHECK(region_inside(circle(10.001, 50, 10), 100, 100));
    CHECK(!region_inside(circle(10, 50, 10), 100, 100));
    CHECK(!region_inside(circle(90, 50, 10), 100, 100));
    CHECK(region_inside(ellipse(50, 10.001, 30, 10, 0), 100, 100));
    CHECK(!region_inside(ellipse(50, 10.001, 30, 10, M_PI / 2), 100, 100));
  }

  TEST_CASE("a keypoint that the homography sends beyond its horizon is not visible") {
    // w = 1 - x / 50 (then a translation): positive at A's centre, -0.5 at
    // (75, 50), which lands mirrored at (50, 50), inside B with its region.
    const Homography h = {-3, 0, 200, -3, 1, 150, -0.02, 0, 1};
    double x, y;
    apply(h, 75, 50, x, y);
    REQUIRE(x == doctest::Approx(50));
    REQUIRE(y == doctest::Approx(50));
    const PairScore s = score_keypoints({at(75, 50, 4)}, {}, h, 100, 100, 100, 100);
    CHECK(s.visible_a == 0);
  }

  TEST_CASE("matching score and precision from correct matches") {
    Features a, b;
    a.keypoints = {at(20, 20, 20), at(60, 60, 20)};
    b.keypoints = {at(21, 20, 20), at(60, 70, 20)};
    // Match 0 -> 0 is correct (1 px); 1 -> 1 is 10 px off: wrong at 3 and at 5 px.
    const std::vector<Match> matches = {{0, 0, 0.1f}, {1, 1, 0.2f}};
    const PairScore s = score_pair(a, b, matches, kIdentity, 100, 100, 100, 100);
    CHECK(s.correct_3px == 1);
    CHECK(s.correct_5px == 1);
    CHECK(s.matching_score == doctest::Approx(0.5));  // 1 correct / min(2, 2) visible
    CHECK(s.precision == doctest::Approx(0.5));
    CHECK(!s.homography_found);  // two matches cannot give one
  }

  TEST_CASE("the matching score counts each keypoint in one correct match at most") {
    // Without the mutual check both of A's keypoints may match B's keypoint 0,
    // and both within 3 px of it: two correct matches, one keypoint of B.
    Features a, b;
    a.keypoints = {at(20, 20, 20), at(21, 21, 20), at(80, 80, 20)};
    b.keypoints = {at(20, 21, 20), at(50, 50, 20), at(80, 81, 20)};
    const std::vector<Match> matches = {{0, 0, 0.2f}, {1, 0, 0.1f}, {2, 2, 0.3f}};
    const PairScore s = score_pair(a, b, matches, kIdentity, 100, 100, 100, 100);
    CHECK(s.correct_3px == 3);                            // every match is within 3 px
    CHECK(s.precision == doctest::Approx(1.0));           // 3 correct / 3 matches
    CHECK(s.matching_score == doctest::Approx(2.0 / 3));  // keypoints 0 and 2 of B / min(3, 3) visible
  }

  TEST_CASE("the matching score counts correct matches inside the common part only") {
    // Keypoint 1 sits where its region leaves both frames: its match is
    // correct (precision counts it) but outside the common part, like the
    // keypoints that the denominator leaves out.
    Features a, b;
    a.keypoints = {at(50, 50, 20), at(5, 50, 20)};
    b.keypoints = {at(50, 50, 20), at(5, 50, 20)};
    const std::vector<Match> matches = {{0, 0, 0.1f}, {1, 1, 0.2f}};
    const PairScore s = score_pair(a, b, matches, kIdentity, 100, 100, 100, 100);
    CHECK(s.visible_a == 1);
    CHECK(s.visible_b == 1);
    CHECK(s.correct_3px == 2);
    CHECK(s.precision == doctest::Approx(1.0));
    CHECK(s.matching_score == doctest::Approx(1.0));  // 1 of 1, not 2 of 1
  }

}  // TEST_SUITE
