// The fundamental matrix (7-point RANSAC, 8-point least squares with rank 2
// enforced, Sampson distance) and the two-view configuration of an
// uncalibrated pair as COLMAP 3.8 decides it. Conventions in
// include/glsurf/geometry.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>

#include "glsurf/geometry.hpp"
#include "io/output.hpp"
#include "match/linalg.hpp"

namespace glsurf {

namespace {

using Matrix3 = std::array<double, 9>;
constexpr double kPi = 3.14159265358979323846;

// Both images' points moved by Hartley's normalisation (ta for A, tb for B).
struct NormalisedPairs {
  Matrix3 ta, tb;
  std::vector<std::array<double, 4>> p;  // x y of A, u v of B
};

NormalisedPairs normalise(const std::vector<PointPair>& pairs) {
  std::vector<std::array<double, 2>> a, b;
  for (const PointPair& p : pairs) a.push_back({p.ax, p.ay}), b.push_back({p.bx, p.by});
  NormalisedPairs n{linalg::normaliser(a), linalg::normaliser(b), {}};
  for (size_t i = 0; i < pairs.size(); ++i) {
    n.p.push_back({n.ta[0] * a[i][0] + n.ta[2], n.ta[4] * a[i][1] + n.ta[5], n.tb[0] * b[i][0] + n.tb[2],
                   n.tb[4] * b[i][1] + n.tb[5]});
  }
  return n;
}

// M^T M of the linear system M f = 0, one row per pair: u_b^T F x_a = 0 with
// F row-major is the row (u x, u y, u, v x, v y, v, x, y, 1) . f.
std::array<double, 81> epipolar_normal_matrix(const NormalisedPairs& n) {
  std::array<double, 81> mtm{};
  for (const auto& q : n.p) {
    const double x = q[0], y = q[1], u = q[2], v = q[3];
    const double r[9] = {u * x, u * y, u, v * x, v * y, v, x, y, 1};
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j) mtm[i * 9 + j] += r[i] * r[j];
  }
  return mtm;
}

// The nearest rank-2 matrix in Frobenius norm: F = U diag(s1, s2, s3) V^T
// less s3 u3 v3^T, which is F (I - v3 v3^T) with v3 the eigenvector of the
// smallest eigenvalue (s3^2) of F^T F.
Matrix3 enforce_rank2(const Matrix3& f) {
  const linalg::SymmetricEigen<3> e = linalg::symmetric_eigen<3>(linalg::multiply3(linalg::transpose3(f), f));
  int smallest = 0;
  for (int i = 1; i < 3; ++i)
    if (e.values[i] < e.values[smallest]) smallest = i;
  const double v[3] = {e.vectors[0 * 3 + smallest], e.vectors[1 * 3 + smallest], e.vectors[2 * 3 + smallest]};
  Matrix3 projector{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) projector[i * 3 + j] = (i == j) - v[i] * v[j];
  return linalg::multiply3(f, projector);
}

// F of the original coordinates from Fn of the normalised ones:
// u_b^T Fn x_a = (Tb u)^T Fn (Ta x) = u^T (Tb^T Fn Ta) x. Scaled to unit
// Frobenius norm with its largest entry positive (F is defined up to scale
// and sign). False if not finite or zero.
bool denormalise(const Matrix3& fn, const NormalisedPairs& n, Fundamental& f) {
  Matrix3 out = linalg::multiply3(linalg::multiply3(linalg::transpose3(n.tb), fn), n.ta);
  double norm = 0;
  size_t largest = 0;
  for (size_t i = 0; i < 9; ++i) {
    norm += out[i] * out[i];
    if (std::abs(out[i]) > std::abs(out[largest])) largest = i;
  }
  norm = std::sqrt(norm);
  if (!(norm > 0) || !std::isfinite(norm)) return false;
  const double scale = (out[largest] < 0 ? -1 : 1) / norm;
  for (double& e : out) e *= scale;
  f = out;
  return true;
}

// The real roots of c3 a^3 + c2 a^2 + c1 a + c0 (c3 != 0), each polished by
// two Newton steps.
std::vector<double> cubic_roots(double c3, double c2, double c1, double c0) {
  const double a = c2 / c3, b = c1 / c3, c = c0 / c3;
  // a = t - a/3 gives t^3 + p t + q = 0.
  const double p = b - a * a / 3, q = 2 * a * a * a / 27 - a * b / 3 + c;
  const double discriminant = q * q / 4 + p * p * p / 27;
  std::vector<double> t;
  if (discriminant > 0) {  // one real root (Cardano)
    const double s = std::sqrt(discriminant);
    t.push_back(std::cbrt(-q / 2 + s) + std::cbrt(-q / 2 - s));
  } else if (p == 0) {  // then q == 0 too: a triple root
    t.push_back(0);
  } else {  // three real roots (trigonometric form)
    const double r = 2 * std::sqrt(-p / 3);
    const double phi = std::acos(std::clamp(3 * q / (p * r), -1.0, 1.0)) / 3;
    for (int k = 0; k < 3; ++k) t.push_back(r * std::cos(phi - 2 * kPi * k / 3));
  }
  std::vector<double> roots;
  for (double root : t) {
    double x = root - a / 3;
    for (int step = 0; step < 2; ++step) {
      const double value = ((x + a) * x + b) * x + c, slope = (3 * x + 2 * a) * x + b;
      if (slope != 0 && std::isfinite(value / slope)) x -= value / slope;
    }
    roots.push_back(x);
  }
  return roots;
}

double squared_sampson(const Fundamental& f, const PointPair& p) {
  const double fx0 = f[0] * p.ax + f[1] * p.ay + f[2];
  const double fx1 = f[3] * p.ax + f[4] * p.ay + f[5];
  const double fx2 = f[6] * p.ax + f[7] * p.ay + f[8];
  const double ftu0 = f[0] * p.bx + f[3] * p.by + f[6];
  const double ftu1 = f[1] * p.bx + f[4] * p.by + f[7];
  const double e = p.bx * fx0 + p.by * fx1 + fx2;
  return e * e / (fx0 * fx0 + fx1 * fx1 + ftu0 * ftu0 + ftu1 * ftu1);
}

int count_inliers(const Fundamental& f, const std::vector<PointPair>& pairs, double threshold) {
  int count = 0;
  for (const PointPair& p : pairs) count += sampson_error(f, p) < threshold;
  return count;
}

// How many distinct pairs (the same four coordinates count once) are flagged.
int distinct_count(const std::vector<PointPair>& pairs, const std::vector<bool>& flagged) {
  std::vector<std::array<double, 4>> keys;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (flagged[i]) keys.push_back({pairs[i].ax, pairs[i].ay, pairs[i].bx, pairs[i].by});
  std::sort(keys.begin(), keys.end());
  return static_cast<int>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

// Local optimisation: the least-squares fit on f's inliers replaces f when
// it keeps at least as many inliers, and is fitted again while their number
// grows (at most 10 rounds).
void refit_on_inliers(const std::vector<PointPair>& pairs, double threshold, Fundamental& f, int& count) {
  for (int round = 0; round < 10; ++round) {
    std::vector<PointPair> in;
    for (const PointPair& p : pairs)
      if (sampson_error(f, p) < threshold) in.push_back(p);
    Fundamental refit;
    if (in.size() < 8 || !fit_fundamental(in, refit)) return;
    const int refit_count = count_inliers(refit, pairs, threshold);
    if (refit_count < count) return;
    const bool grew = refit_count > count;
    f = refit;
    count = refit_count;
    if (!grew) return;
  }
}

}  // namespace

double sampson_error(const Fundamental& f, const PointPair& p) {
  const double e = std::sqrt(squared_sampson(f, p));
  return std::isfinite(e) ? e : 1e300;
}

bool fit_fundamental(const std::vector<PointPair>& pairs, Fundamental& f) {
  if (pairs.size() < 8) return false;
  const NormalisedPairs n = normalise(pairs);
  const linalg::SmallestEigen eigen = linalg::smallest_eigenvector(epipolar_normal_matrix(n));
  // Two (near) zero eigenvalues: a family of matrices fits the pairs.
  if (!(eigen.gap > 1e-10)) return false;
  return denormalise(enforce_rank2(eigen.vector), n, f);
}

std::vector<Fundamental> seven_point_fundamentals(const std::vector<PointPair>& pairs) {
  if (pairs.size() != 7) return {};
  const NormalisedPairs n = normalise(pairs);
  const linalg::SymmetricEigen<9> e = linalg::symmetric_eigen<9>(epipolar_normal_matrix(n));
  std::array<int, 9> order;
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int i, int j) { return e.values[i] < e.values[j]; });
  // Seven independent rows leave a null space of two; a third (near) zero
  // eigenvalue means fewer: collinear or repeated points.
  if (!(e.values[order[2]] > 1e-10 * e.values[order[8]])) return {};
  Matrix3 f1, f2, d;
  for (int k = 0; k < 9; ++k) {
    f1[k] = e.vectors[k * 9 + order[0]];
    f2[k] = e.vectors[k * 9 + order[1]];
    d[k] = f1[k] - f2[k];
  }
  // det(a F1 + (1 - a) F2) = det(F2 + a D) = c3 a^3 + c2 a^2 + c1 a + c0,
  // the coefficients from its values at a = 0, 1, -1, 2.
  const auto det_at = [&](double a) {
    Matrix3 m;
    for (int k = 0; k < 9; ++k) m[k] = f2[k] + a * d[k];
    return linalg::determinant3(m);
  };
  const double p0 = det_at(0), p1 = det_at(1), pm1 = det_at(-1), p2 = det_at(2);
  const double c0 = p0, c2 = (p1 + pm1) / 2 - p0, odd = (p1 - pm1) / 2;  // odd = c3 + c1
  const double c3 = (p2 - p0 - 4 * c2 - 2 * odd) / 6, c1 = odd - c3;
  std::vector<Matrix3> candidates;
  const double size = std::max({std::abs(c0), std::abs(c1), std::abs(c2), std::abs(c3)});
  if (std::abs(c3) > 1e-10 * size) {
    for (double a : cubic_roots(c3, c2, c1, c0)) {
      Matrix3 m;
      for (int k = 0; k < 9; ++k) m[k] = f2[k] + a * d[k];
      candidates.push_back(m);
    }
  } else {
    // c3 = det(D) ~ 0: D itself (a at infinity) is a solution, and the
    // quadratic c2 a^2 + c1 a + c0 gives the others.
    candidates.push_back(d);
    if (std::abs(c2) > 1e-10 * size) {
      const double disc = c1 * c1 - 4 * c2 * c0;
      if (disc >= 0) {
        for (double sign : {-1.0, 1.0}) {
          const double a = (-c1 + sign * std::sqrt(disc)) / (2 * c2);
          Matrix3 m;
          for (int k = 0; k < 9; ++k) m[k] = f2[k] + a * d[k];
          candidates.push_back(m);
        }
      }
    } else if (std::abs(c1) > 1e-10 * size) {
      Matrix3 m;
      for (int k = 0; k < 9; ++k) m[k] = f2[k] - c0 / c1 * d[k];
      candidates.push_back(m);
    }
  }
  std::vector<Fundamental> out;
  for (const Matrix3& m : candidates) {
    Fundamental f;
    if (denormalise(m, n, f)) out.push_back(f);
  }
  return out;
}

RansacConfig fundamental_ransac_config() {
  RansacConfig c;
  c.threshold = 3.0;
  c.max_iterations = 10000;
  c.confidence = 0.999;
  c.min_inliers = 15;
  return c;
}

FundamentalResult ransac_fundamental(const std::vector<PointPair>& pairs, const RansacConfig& config) {
  FundamentalResult best;
  best.inliers.assign(pairs.size(), false);
  if (pairs.size() < 7) return best;
  std::mt19937 rng(config.seed);
  std::uniform_int_distribution<size_t> pick(0, pairs.size() - 1);
  int iterations = config.max_iterations;
  for (int it = 0; it < iterations; ++it) {
    std::vector<size_t> s;
    while (s.size() < 7) {
      const size_t k = pick(rng);
      if (std::find(s.begin(), s.end(), k) == s.end()) s.push_back(k);
    }
    std::vector<PointPair> sample;
    for (size_t k : s) sample.push_back(pairs[k]);
    bool improved = false;
    for (const Fundamental& f : seven_point_fundamentals(sample)) {
      int count = count_inliers(f, pairs, config.threshold);
      if (count <= best.inlier_count) continue;
      Fundamental model = f;
      refit_on_inliers(pairs, config.threshold, model, count);
      best.f = model;
      best.inlier_count = count;
      best.found = true;
      improved = true;
    }
    if (!improved) continue;
    if (best.inlier_count == static_cast<int>(pairs.size())) break;  // cannot do better
    // Adaptive stopping: enough iterations to draw one all-inlier sample of 7.
    const double w = static_cast<double>(best.inlier_count) / pairs.size();
    const double p7 = std::pow(w, 7);
    if (p7 > 0 && p7 < 1) {
      const double needed = std::ceil(std::log(1 - config.confidence) / std::log1p(-p7));
      if (needed < iterations - it - 1) iterations = static_cast<int>(needed) + it + 1;
    }
  }
  if (!best.found) return best;
  refit_on_inliers(pairs, config.threshold, best.f, best.inlier_count);
  best.inlier_count = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    best.inliers[i] = sampson_error(best.f, pairs[i]) < config.threshold;
    best.inlier_count += best.inliers[i];
  }
  if (distinct_count(pairs, best.inliers) < config.min_inliers) {  // a chance fit: report none
    best.found = false;
    best.f = Fundamental{};
    best.inliers.assign(pairs.size(), false);
  }
  return best;
}

void write_fundamental(std::ostream& out, const Fundamental& f) {
  char line[128];
  for (int r = 0; r < 3; ++r) {
    std::snprintf(line, sizeof line, "%.10g %.10g %.10g\n", f[r * 3], f[r * 3 + 1], f[r * 3 + 2]);
    out << line;
  }
}

void write_fundamental_file(const std::string& path, const Fundamental& f) {
  write_file_atomically(path, false, [&](std::ostream& out) { write_fundamental(out, f); });
}

const char* to_string(TwoViewConfiguration c) {
  switch (c) {
    case TwoViewConfiguration::undefined:
      return "undefined";
    case TwoViewConfiguration::degenerate:
      return "degenerate";
    case TwoViewConfiguration::calibrated:
      return "calibrated";
    case TwoViewConfiguration::uncalibrated:
      return "uncalibrated";
    case TwoViewConfiguration::planar:
      return "planar";
    case TwoViewConfiguration::panoramic:
      return "panoramic";
    case TwoViewConfiguration::planar_or_panoramic:
      return "planar or panoramic";
    case TwoViewConfiguration::watermark:
      return "watermark";
    case TwoViewConfiguration::multiple:
      return "multiple";
  }
  return "unknown";
}

TwoViewGeometry estimate_two_view_geometry(const std::vector<PointPair>& pairs,
                                           const TwoViewOptions& options) {
  TwoViewGeometry g;
  g.inliers.assign(pairs.size(), false);
  if (pairs.size() < static_cast<size_t>(options.min_num_inliers)) {
    g.configuration = TwoViewConfiguration::degenerate;
    return g;
  }
  // COLMAP's inlier test is residual^2 <= max_error^2; ours is distance <
  // threshold, so the threshold is the next double above max_error.
  RansacConfig ransac;
  ransac.threshold = std::nextafter(options.max_error, std::numeric_limits<double>::infinity());
  ransac.max_iterations = options.max_num_trials;
  ransac.confidence = options.confidence;
  ransac.seed = options.seed;
  // A RANSAC succeeds in COLMAP with as many inliers as its minimal sample.
  RansacConfig f_config = ransac, h_config = ransac;
  f_config.min_inliers = 7;
  h_config.min_inliers = 4;
  const FundamentalResult f = ransac_fundamental(pairs, f_config);
  const HomographyResult h = ransac_homography(pairs, h_config);
  g.f_found = f.found;
  g.h_found = h.found;
  g.f = f.f;
  g.h = h.h;
  g.f_inlier_count = f.inlier_count;
  g.h_inlier_count = h.inlier_count;
  if ((!f.found && !h.found) ||
      (f.inlier_count < options.min_num_inliers && h.inlier_count < options.min_num_inliers)) {
    g.configuration = TwoViewConfiguration::degenerate;
    return g;
  }
  // F with no inliers and H with some: the ratio is infinite, planar.
  const double h_f_ratio = static_cast<double>(h.inlier_count) / f.inlier_count;
  if (h_f_ratio > options.max_h_inlier_ratio) {
    g.configuration = TwoViewConfiguration::planar_or_panoramic;
    g.inliers_from_h = h.inlier_count >= f.inlier_count;
  } else {
    g.configuration = TwoViewConfiguration::uncalibrated;
  }
  g.inliers = g.inliers_from_h ? h.inliers : f.inliers;
  g.inlier_count = static_cast<int>(std::count(g.inliers.begin(), g.inliers.end(), true));
  return g;
}

}  // namespace glsurf
