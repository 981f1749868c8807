// Evaluation metrics on hand-built cases whose values are worked out by hand.
#include <doctest/doctest.h>

#include "glsurf/eval/metrics.hpp"

#include <cmath>

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

TEST_CASE("circle overlap error, worked by hand") {
  CHECK(circle_overlap_error(0, 10, 10) == doctest::Approx(0.0));
  CHECK(circle_overlap_error(25, 10, 10) == doctest::Approx(1.0));
  // Concentric radii 10 and 20: 1 - 100 pi / 400 pi.
  CHECK(circle_overlap_error(0, 10, 20) == doctest::Approx(0.75));
  // Equal radii r = 10 at distance 10: lens 2 r^2 acos(1/2) - 5 sqrt(300).
  const double lens = 200 * std::acos(0.5) - 5 * std::sqrt(300.0);
  CHECK(circle_overlap_error(10, 10, 10) == doctest::Approx(1 - lens / (200 * M_PI - lens)));
}

TEST_CASE("repeatability counts one-to-one correspondences among visible points") {
  // A: three keypoints; B: the first two again (one slightly off), plus one elsewhere.
  const std::vector<KeyPoint> a = {at(20, 20, 20), at(60, 60, 20), at(90, 90, 20)};
  const std::vector<KeyPoint> b = {at(20, 20, 20), at(61, 60, 20), at(40, 80, 20)};
  const PairScore s = score_keypoints(a, b, kIdentity, 100, 100, 100, 100);
  CHECK(s.visible_a == 3);
  CHECK(s.visible_b == 3);
  // (20,20): error 0. (60,60)-(61,60): radius 10 scaled to 30, distance 1: error
  // 1 - lens/union, under 40 %. (90,90) has no partner.
  CHECK(s.correspondences == 2);
  CHECK(s.repeatability == doctest::Approx(2.0 / 3.0));
}

TEST_CASE("regions are rescaled to radius 30 about their centres, the centre distance is not") {
  // Size 9 (radius 4.5), 2 px apart: unscaled the overlap error is 1 - 0.56 =
  // 0.44 (no correspondence); rescaled to radius 30 and still 2 px apart,
  // two circles of radius 30 whose error is about 0.08.
  const PairScore small = score_keypoints({at(50, 50, 9)}, {at(52, 50, 9)}, kIdentity, 100, 100, 100, 100);
  CHECK(small.correspondences == 1);
  // Size 200 (radius 100), 30 px apart: unscaled the error is about 0.32; at
  // radius 30 the circles are 30 px apart, error about 0.76 (none).
  const PairScore large = score_keypoints({at(500, 500, 200)}, {at(530, 500, 200)}, kIdentity, 1000, 1000, 1000, 1000);
  CHECK(large.correspondences == 0);
  // The same two cases computed directly.
  CHECK(circle_overlap_error(2, 30, 30) == doctest::Approx(0.0814).epsilon(0.001));
  CHECK(circle_overlap_error(30, 30, 30) == doctest::Approx(0.7570).epsilon(0.001));
}

TEST_CASE("points outside the common area are not visible") {
  // B is A shifted 50 px right: A's points beyond x = 49 leave B's 100 px frame.
  const Homography shift = {1, 0, 50, 0, 1, 0, 0, 0, 1};
  const std::vector<KeyPoint> a = {at(10, 50, 20), at(30, 50, 20), at(80, 50, 20)};
  const std::vector<KeyPoint> b = {at(60, 50, 20), at(80, 50, 20), at(5, 50, 20), at(20, 50, 20)};
  const PairScore s = score_keypoints(a, b, shift, 100, 100, 100, 100);
  CHECK(s.visible_a == 2);  // (10,50) -> (60,50) and (30,50) -> (80,50); (80,50) -> (130,50) is outside
  CHECK(s.visible_b == 2);  // (60,50) and (80,50) map back inside A; (5,50), (20,50) map to x < 0
  CHECK(s.correspondences == 2);
  CHECK(s.repeatability == doctest::Approx(1.0));
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
  CHECK(s.correct_3px == 3);                        // every match is within 3 px
  CHECK(s.precision == doctest::Approx(1.0));       // 3 correct / 3 matches
  CHECK(s.matching_score == doctest::Approx(2.0 / 3));  // keypoints 0 and 2 of B / min(3, 3) visible
}

}  // TEST_SUITE
