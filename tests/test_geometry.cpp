// The fundamental matrix and the two-view configuration on synthetic scenes
// whose truth is built independently of the estimators: 3-D points seen by
// two pinhole cameras K [I | 0] and K [R | t], so that the true
// F = K^-T [t]x R K^-1, the epipole of B's centre in A is K (-R^T t), and a
// planar scene or a pure rotation gives a homography.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "glsurf/geometry.hpp"

using namespace glsurf;

namespace {

using M3 = std::array<double, 9>;

M3 mul(const M3& a, const M3& b) {
  M3 c{};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < 3; ++q) c[r * 3 + q] += a[r * 3 + k] * b[k * 3 + q];
  return c;
}
M3 transpose(const M3& a) { return {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}; }
double det(const M3& a) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}
double norm(const M3& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s);
}
std::array<double, 3> apply3(const M3& m, const std::array<double, 3>& x) {
  return {m[0] * x[0] + m[1] * x[1] + m[2] * x[2], m[3] * x[0] + m[4] * x[1] + m[5] * x[2],
          m[6] * x[0] + m[7] * x[1] + m[8] * x[2]};
}

// Rotation by angles (radians) about x, then y, then z.
M3 rotation(double ax, double ay, double az) {
  const M3 rx = {1, 0, 0, 0, std::cos(ax), -std::sin(ax), 0, std::sin(ax), std::cos(ax)};
  const M3 ry = {std::cos(ay), 0, std::sin(ay), 0, 1, 0, -std::sin(ay), 0, std::cos(ay)};
  const M3 rz = {std::cos(az), -std::sin(az), 0, std::sin(az), std::cos(az), 0, 0, 0, 1};
  return mul(rz, mul(ry, rx));
}

// An 800 x 600 camera, focal length 700 px.
const M3 kK = {700, 0, 399.5, 0, 700, 299.5, 0, 0, 1};
const M3 kKinv = {1 / 700.0, 0, -399.5 / 700, 0, 1 / 700.0, -299.5 / 700, 0, 0, 1};

struct Scene {
  M3 r;
  std::array<double, 3> t;
  M3 true_f() const {  // K^-T [t]x R K^-1
    const M3 tx = {0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0};
    return mul(transpose(kKinv), mul(mul(tx, r), kKinv));
  }
  std::array<double, 3> epipole_a() const {  // B's centre -R^T t seen by A
    const std::array<double, 3> c = apply3(transpose(r), t);
    return apply3(kK, {-c[0], -c[1], -c[2]});
  }
  // X's projections in A and B; false if behind either camera or outside
  // either image.
  bool project(const std::array<double, 3>& x, PointPair& p) const {
    const std::array<double, 3> xa = apply3(kK, x);
    const std::array<double, 3> rx = apply3(r, x);
    const std::array<double, 3> xb = apply3(kK, {rx[0] + t[0], rx[1] + t[1], rx[2] + t[2]});
    if (!(xa[2] > 0.1 && xb[2] > 0.1)) return false;
    p = {xa[0] / xa[2], xa[1] / xa[2], xb[0] / xb[2], xb[1] / xb[2]};
    const auto inside = [](double x, double y) { return x >= 0 && x <= 799 && y >= 0 && y <= 599; };
    return inside(p.ax, p.ay) && inside(p.bx, p.by);
  }
};

// A real baseline (mostly sideways) and a rotation of a few degrees.
const Scene kStereo = {rotation(0.05, -0.12, 0.03), {-1.0, 0.15, 0.1}};

enum class Shape { volume, plane };

// n exact correspondences: points in a volume 4-12 units deep, or on a
// slanted plane about 7 units away.
std::vector<PointPair> exact_pairs(const Scene& s, int n, Shape shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), depth(4, 12);
  std::vector<PointPair> pairs;
  while (static_cast<int>(pairs.size()) < n) {
    std::array<double, 3> x;
    if (shape == Shape::volume) {
      const double z = depth(rng);
      x = {u(rng) * 0.6 * z, u(rng) * 0.45 * z, z};
    } else {  // the plane z = 7 + 0.3 x - 0.2 y
      const double px = u(rng) * 4, py = u(rng) * 3;
      x = {px, py, 7 + 0.3 * px - 0.2 * py};
    }
    PointPair p;
    if (s.project(x, p)) pairs.push_back(p);
  }
  return pairs;
}

// Uniform noise of +-0.3 px on each coordinate.
std::vector<PointPair> noisy(std::vector<PointPair> pairs, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.3, 0.3);
  for (PointPair& p : pairs) {
    p.ax += noise(rng);
    p.ay += noise(rng);
    p.bx += noise(rng);
    p.by += noise(rng);
  }
  return pairs;
}

// Pairs of unrelated points, uniform in both images.
std::vector<PointPair> random_pairs(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> x(0, 799), y(0, 599);
  std::vector<PointPair> pairs;
  for (int i = 0; i < n; ++i) pairs.push_back({x(rng), y(rng), x(rng), y(rng)});
  return pairs;
}

// K^T F K scaled to unit norm: an essential matrix, whose entries are all
// of one magnitude, so that it can be compared and its rank judged.
M3 essential_of(const Fundamental& f) {
  M3 e = mul(transpose(kK), mul(f, kK));
  const double n = norm(e);
  for (double& v : e) v /= n;
  return e;
}

// The distance between two matrices defined up to scale and sign.
double projective_distance(const M3& a, const M3& b) {
  M3 d1, d2;
  for (int i = 0; i < 9; ++i) d1[i] = a[i] - b[i], d2[i] = a[i] + b[i];
  return std::min(norm(d1), norm(d2));
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("sampson_error: a hand-worked case (pure sideways translation, K = I)") {
    // F = [t]x with t = (1, 0, 0): x_b^T F x_a = ay - by, and the gradient
    // has squared norm 2: the distance is |ay - by| / sqrt(2), the pair's
    // distance in R^4 to the nearest pair on one row.
    const Fundamental f = {0, 0, 0, 0, 0, -1, 0, 1, 0};
    CHECK(sampson_error(f, {10, 5, 30, 8}) == doctest::Approx(3 / std::sqrt(2.0)).epsilon(1e-12));
    CHECK(sampson_error(f, {10, 5, 300, 5}) == 0);
    CHECK(sampson_error(Fundamental{}, {10, 5, 30, 8}) == 1e300);  // no F: not finite, not an inlier
  }

  TEST_CASE("the 8-point fit on exact data gives back F, of rank 2") {
    const std::vector<PointPair> pairs = exact_pairs(kStereo, 20, Shape::volume, 3);
    Fundamental f;
    REQUIRE(fit_fundamental(pairs, f));
    for (const PointPair& p : pairs) {
      const double e = p.bx * (f[0] * p.ax + f[1] * p.ay + f[2]) + p.by * (f[3] * p.ax + f[4] * p.ay + f[5]) +
                       (f[6] * p.ax + f[7] * p.ay + f[8]);
      CHECK(std::abs(e) < 1e-9);  // x_b^T F x_a with |F| = 1
      CHECK(sampson_error(f, p) < 1e-6);
    }
    const M3 e = essential_of(f);
    CHECK(std::abs(det(e)) < 1e-10);  // rank 2
    CHECK(projective_distance(e, essential_of(kStereo.true_f())) < 1e-6);
    // F e_a = 0 for the true epipole.
    const std::array<double, 3> ea = kStereo.epipole_a(), fe = apply3(f, ea);
    CHECK(std::hypot(fe[0], fe[1], fe[2]) / std::hypot(ea[0], ea[1], ea[2]) < 1e-9);
  }

  TEST_CASE("the 8-point fit enforces rank 2 on noisy data") {
    const std::vector<PointPair> pairs = noisy(exact_pairs(kStereo, 50, Shape::volume, 4), 5);
    Fundamental f;
    REQUIRE(fit_fundamental(pairs, f));
    CHECK(std::abs(det(essential_of(f))) < 1e-12);
    CHECK(projective_distance(essential_of(f), essential_of(kStereo.true_f())) < 0.05);
  }

  TEST_CASE("the 7-point solver on exact data: one of its solutions is the truth") {
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
      CAPTURE(seed);
      const std::vector<PointPair> pairs = exact_pairs(kStereo, 7, Shape::volume, seed);
      const std::vector<Fundamental> solutions = seven_point_fundamentals(pairs);
      REQUIRE(!solutions.empty());
      CHECK(solutions.size() <= 3);
      double closest = 1e9;
      for (const Fundamental& f : solutions) {
        CHECK(std::abs(det(essential_of(f))) < 1e-8);  // each of rank 2
        for (const PointPair& p : pairs) CHECK(sampson_error(f, p) < 1e-6);
        closest = std::min(closest, projective_distance(essential_of(f), essential_of(kStereo.true_f())));
      }
      CHECK(closest < 1e-6);
    }
  }

  TEST_CASE("F-RANSAC recovers the epipolar geometry from 50 % outliers") {
    const std::vector<PointPair> truth = exact_pairs(kStereo, 200, Shape::volume, 21);
    const std::vector<PointPair> inliers = noisy(truth, 22);
    std::vector<PointPair> pairs = inliers;
    const std::vector<PointPair> outliers = random_pairs(200, 23);
    pairs.insert(pairs.end(), outliers.begin(), outliers.end());
    std::shuffle(pairs.begin(), pairs.end(), std::mt19937(24));
    const FundamentalResult r = ransac_fundamental(pairs);
    REQUIRE(r.found);
    // The true inliers' Sampson distances under the estimate (with their
    // noise, which alone gives a median of ~0.1 px), and those of their
    // noise-free projections (the estimate's own error).
    std::vector<double> noisy_errors, exact_errors;
    for (size_t i = 0; i < inliers.size(); ++i) {
      noisy_errors.push_back(sampson_error(r.f, inliers[i]));
      exact_errors.push_back(sampson_error(r.f, truth[i]));
    }
    const double median = percentile(noisy_errors, 0.5), p95 = percentile(noisy_errors, 0.95);
    MESSAGE("true inliers' Sampson distance: median ", median, " px, 95th percentile ", p95,
            " px; noise-free: median ", percentile(exact_errors, 0.5), ", 95th ",
            percentile(exact_errors, 0.95));
    CHECK(median < 0.5);
    CHECK(p95 < 0.5);
    CHECK(percentile(exact_errors, 0.95) < 0.5);
    // Which pairs were flagged: the inliers by their coordinates.
    int true_flagged = 0, outliers_flagged = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      const bool is_true = std::any_of(inliers.begin(), inliers.end(), [&](const PointPair& p) {
        return p.ax == pairs[i].ax && p.ay == pairs[i].ay && p.bx == pairs[i].bx && p.by == pairs[i].by;
      });
      if (r.inliers[i]) ++(is_true ? true_flagged : outliers_flagged);
    }
    MESSAGE("flagged: ", true_flagged, " of 200 true inliers, ", outliers_flagged, " of 200 outliers");
    CHECK(true_flagged >= 190);     // >= 95 %
    CHECK(outliers_flagged <= 20);  // a random pair falls in the 3 px band of its epipolar line now and then
    CHECK(r.inlier_count == true_flagged + outliers_flagged);
    CHECK(projective_distance(essential_of(r.f), essential_of(kStereo.true_f())) < 0.05);
    // The fixed seed: the same result again.
    const FundamentalResult again = ransac_fundamental(pairs);
    CHECK(again.f == r.f);
    CHECK(again.inliers == r.inliers);
  }

  TEST_CASE("degenerate input: no fundamental matrix, no crash") {
    // All points on one line in both images.
    std::vector<PointPair> line;
    for (int i = 0; i < 50; ++i) line.push_back({10.0 + 7 * i, 20.0 + 3 * i, 400.0 - 5 * i, 30.0 + 2 * i});
    Fundamental f;
    CHECK(!fit_fundamental(line, f));
    CHECK(seven_point_fundamentals({line.begin(), line.begin() + 7}).empty());
    FundamentalResult r = ransac_fundamental(line);
    CHECK(!r.found);
    CHECK(std::none_of(r.inliers.begin(), r.inliers.end(), [](bool b) { return b; }));
    // One pair repeated.
    const std::vector<PointPair> same(40, PointPair{100, 200, 300, 250});
    CHECK(!fit_fundamental(same, f));
    r = ransac_fundamental(same);
    CHECK(!r.found);
    // Four distinct pairs, each repeated ten times: no F either.
    std::vector<PointPair> four;
    for (int i = 0; i < 40; ++i) four.push_back(exact_pairs(kStereo, 4, Shape::volume, 9)[i % 4]);
    CHECK(!fit_fundamental(four, f));
    CHECK(!ransac_fundamental(four).found);
    // Too few pairs.
    CHECK(!ransac_fundamental(exact_pairs(kStereo, 6, Shape::volume, 10)).found);
    CHECK(seven_point_fundamentals(exact_pairs(kStereo, 6, Shape::volume, 10)).empty());
    const TwoViewGeometry g = estimate_two_view_geometry(line);
    CHECK(g.configuration == TwoViewConfiguration::degenerate);
  }

  TEST_CASE("the configuration enum carries COLMAP's values") {
    CHECK(static_cast<int>(TwoViewConfiguration::undefined) == 0);
    CHECK(static_cast<int>(TwoViewConfiguration::degenerate) == 1);
    CHECK(static_cast<int>(TwoViewConfiguration::calibrated) == 2);
    CHECK(static_cast<int>(TwoViewConfiguration::uncalibrated) == 3);
    CHECK(static_cast<int>(TwoViewConfiguration::planar) == 4);
    CHECK(static_cast<int>(TwoViewConfiguration::panoramic) == 5);
    CHECK(static_cast<int>(TwoViewConfiguration::planar_or_panoramic) == 6);
    CHECK(static_cast<int>(TwoViewConfiguration::watermark) == 7);
    CHECK(static_cast<int>(TwoViewConfiguration::multiple) == 8);
    CHECK(std::string(to_string(TwoViewConfiguration::planar_or_panoramic)) == "planar or panoramic");
  }

  TEST_CASE("two-view configuration: general 3-D scene, plane, pure rotation, too few, unrelated") {
    // 150 true pairs and 50 outliers in each case.
    const auto with_outliers = [](std::vector<PointPair> pairs, std::uint32_t seed) {
      const std::vector<PointPair> out = random_pairs(50, seed);
      pairs.insert(pairs.end(), out.begin(), out.end());
      return pairs;
    };
    SUBCASE("a 3-D scene with a baseline: uncalibrated, F's inliers") {
      const TwoViewGeometry g = estimate_two_view_geometry(
          with_outliers(noisy(exact_pairs(kStereo, 150, Shape::volume, 31), 32), 33));
      MESSAGE("3-D scene: F ", g.f_inlier_count, " inliers, H ", g.h_inlier_count);
      CHECK(g.configuration == TwoViewConfiguration::uncalibrated);
      CHECK(!g.inliers_from_h);
      CHECK(g.f_inlier_count >= 145);
      CHECK(g.inlier_count == g.f_inlier_count);
      CHECK(g.h_inlier_count < 0.8 * g.f_inlier_count);
      CHECK(projective_distance(essential_of(g.f), essential_of(kStereo.true_f())) < 0.05);
    }
    SUBCASE("a planar scene with a baseline: planar or panoramic") {
      const TwoViewGeometry g = estimate_two_view_geometry(
          with_outliers(noisy(exact_pairs(kStereo, 150, Shape::plane, 41), 42), 43));
      MESSAGE("plane: F ", g.f_inlier_count, " inliers, H ", g.h_inlier_count);
      CHECK(g.configuration == TwoViewConfiguration::planar_or_panoramic);
      CHECK(g.h_found);
      CHECK(g.h_inlier_count >= 145);
    }
    SUBCASE("a pure rotation (t = 0): planar or panoramic, H = K R K^-1") {
      const Scene rotation_only = {rotation(0.04, 0.1, -0.02), {0, 0, 0}};
      const TwoViewGeometry g = estimate_two_view_geometry(
          with_outliers(noisy(exact_pairs(rotation_only, 150, Shape::volume, 51), 52), 53));
      MESSAGE("rotation: F ", g.f_inlier_count, " inliers, H ", g.h_inlier_count);
      CHECK(g.configuration == TwoViewConfiguration::planar_or_panoramic);
      REQUIRE(g.h_found);
      CHECK(g.h_inlier_count >= 145);
      CHECK(corner_error(g.h, mul(kK, mul(rotation_only.r, kKinv)), 800, 600) < 1.0);
      if (g.h_inlier_count >= g.f_inlier_count) CHECK(g.inliers_from_h);
    }
    SUBCASE("fewer matches than min_num_inliers: degenerate") {
      const TwoViewGeometry g = estimate_two_view_geometry(exact_pairs(kStereo, 14, Shape::volume, 61));
      CHECK(g.configuration == TwoViewConfiguration::degenerate);
      CHECK(g.inlier_count == 0);
    }
    // A 7-point fit plus the pairs that fall by chance within 4 px of their
    // epipolar lines: 7 + ~6 of 30 unrelated pairs. With more pairs the rule
    // (like COLMAP's) passes chance fits: 15 inliers of 60 pairs happened for
    // 12 seeds of 40, and 100 unrelated pairs always reach 15.
    SUBCASE("30 unrelated pairs: degenerate") {
      for (std::uint32_t seed = 71; seed <= 80; ++seed) {
        CAPTURE(seed);
        const TwoViewGeometry g = estimate_two_view_geometry(random_pairs(30, seed));
        CHECK(g.configuration == TwoViewConfiguration::degenerate);
        CHECK(g.f_inlier_count < 15);
        CHECK(std::none_of(g.inliers.begin(), g.inliers.end(), [](bool b) { return b; }));
      }
    }
  }
}  // TEST_SUITE
