#include "eval/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace glsurf {

namespace {

constexpr double kPi = 3.14159265358979323846;

// An ellipse as the image of the unit circle: p(t) = (x, y) + L (cos t, sin t),
// L = [l11 0; l21 l22] the Cholesky factor of M^-1 (so det L > 0: t runs
// counter-clockwise in x-y axes).
struct Parametric {
  double x, y, l11, l21, l22;
};

Parametric parametric(const Ellipse& e) {
  const double det = e.a * e.c - e.b * e.b;
  const double p = e.c / det, q = -e.b / det, r = e.a / det;  // M^-1
  Parametric out{e.x, e.y, std::sqrt(p), 0, 0};
  out.l21 = q / out.l11;
  out.l22 = std::sqrt(std::max(r - out.l21 * out.l21, 0.0));
  return out;
}

// (p - c)^T M (p - c) - 1: negative inside.
double level(const Ellipse& e, double x, double y) {
  const double dx = x - e.x, dy = y - e.y;
  return e.a * dx * dx + 2 * e.b * dx * dy + e.c * dy * dy - 1;
}

// Points within rounding of the boundary count as inside. Without this
// margin, two equal ellipses (a keypoint and itself under the identity) would
// cross at every rounding error along their common boundary.
constexpr double kOnBoundary = 1e-10;
bool inside(const Ellipse& e, double x, double y) { return level(e, x, y) < kOnBoundary; }

void point(const Parametric& e, double t, double& x, double& y) {
  const double c = std::cos(t), s = std::sin(t);
  x = e.x + e.l11 * c;
  y = e.y + e.l21 * c + e.l22 * s;
}

// (1/2) of the integral of x dy - y dx along e from t0 to t1 (Green's
// theorem: over a closed counter-clockwise curve, the area it encloses).
double green(const Parametric& e, double t0, double t1) {
  const double dc = std::cos(t1) - std::cos(t0), ds = std::sin(t1) - std::sin(t0);
  return 0.5 * (e.l11 * e.l22 * (t1 - t0) + e.x * (e.l21 * dc + e.l22 * ds) - e.y * e.l11 * dc);
}

// Where p's boundary crosses q's, as angles on p: sign changes of q's level
// along p at kSamples angles, each refined by bisection to rounding. Two
// crossings closer than 2 pi / kSamples (a near tangency) may be missed
// together; what they enclose is then a sliver of that width or less.
constexpr int kSamples = 256;

std::vector<double> crossings(const Parametric& p, const Ellipse& q) {
  std::vector<double> roots;
  double x, y;
  point(p, 0, x, y);
  bool inside0 = inside(q, x, y), was = inside0;
  for (int k = 1; k <= kSamples; ++k) {
    const double t = 2 * kPi * k / kSamples;
    point(p, k == kSamples ? 0 : t, x, y);
    const bool now = k == kSamples ? inside0 : inside(q, x, y);
    if (now != was) {
      double lo = 2 * kPi * (k - 1) / kSamples, hi = t;
      for (int i = 0; i < 60 && hi - lo > 1e-15; ++i) {
        const double mid = 0.5 * (lo + hi);
        point(p, mid, x, y);
        if (inside(q, x, y) == was)
          lo = mid;
        else
          hi = mid;
      }
      roots.push_back(0.5 * (lo + hi));
      was = now;
    }
  }
  return roots;
}

// The Green integral over the arcs of e between consecutive angles (sorted,
// cyclic) whose middle lies inside `other`: within the margin when `margin`,
// else strictly (so that an arc where the two boundaries meet counts once, as
// p's).
double arcs_inside(const Parametric& e, const std::vector<double>& angles, const Ellipse& other,
                   bool margin) {
  double sum = 0;
  for (size_t i = 0; i < angles.size(); ++i) {
    const double t0 = angles[i], t1 = i + 1 < angles.size() ? angles[i + 1] : angles[0] + 2 * kPi;
    double x, y;
    point(e, 0.5 * (t0 + t1), x, y);
    if (margin ? inside(other, x, y) : level(other, x, y) < -kOnBoundary) sum += green(e, t0, t1);
  }
  return sum;
}

double intersection_area(const Ellipse& p0, const Ellipse& q0) {
  // In coordinates centred on p, for accuracy.
  Ellipse p = p0, q = q0;
  q.x -= p.x;
  q.y -= p.y;
  p.x = p.y = 0;
  const Parametric pp = parametric(p), pq = parametric(q);
  const std::vector<double> on_p = crossings(pp, q);
  if (on_p.empty()) {
    double x, y;
    point(pp, 0, x, y);
    if (inside(q, x, y)) return ellipse_area(p);  // p inside q
    point(pq, 0, x, y);
    if (inside(p, x, y)) return ellipse_area(q);  // q inside p
    return 0;
  }
  // The same points as angles on q, so that the arcs of both close up.
  std::vector<double> on_q;
  for (double t : on_p) {
    double x, y;
    point(pp, t, x, y);
    const double u = (x - pq.x) / pq.l11, v = (y - pq.y - pq.l21 * u) / pq.l22;
    on_q.push_back(std::atan2(v, u));
  }
  std::sort(on_q.begin(), on_q.end());
  const double area = arcs_inside(pp, on_p, q, true) + arcs_inside(pq, on_q, p, false);
  return std::clamp(area, 0.0, std::min(ellipse_area(p), ellipse_area(q)));
}

// Whether h sends (x, y) to a finite point on the same side of its horizon
// as `reference` (a point known to be in front).
bool in_front(const Homography& h, double x, double y, double reference) {
  const double w = h[6] * x + h[7] * y + h[8];
  return reference > 0 ? w > 0 : reference < 0 ? w < 0 : false;
}

double w_at(const Homography& h, double x, double y) { return h[6] * x + h[7] * y + h[8]; }

// The common part: visible[i] and, for each keypoint, its region mapped into
// the other image (valid where visible).
struct Visible {
  std::vector<bool> visible;
  std::vector<Ellipse> own, mapped;
  int count = 0;
};

Visible common_part(const std::vector<KeyPoint>& k, const Homography& h, int width, int height,
                    int other_width, int other_height) {
  Visible v;
  v.visible.assign(k.size(), false);
  v.own.resize(k.size());
  v.mapped.resize(k.size());
  const double reference = w_at(h, (width - 1) / 2.0, (height - 1) / 2.0);
  for (size_t i = 0; i < k.size(); ++i) {
    v.own[i] = keypoint_region(k[i]);
    if (!(k[i].size > 0) || !region_inside(v.own[i], width, height)) continue;
    if (!in_front(h, k[i].x, k[i].y, reference)) continue;
    if (!project_region(v.own[i], h, v.mapped[i]) || !region_inside(v.mapped[i], other_width, other_height))
      continue;
    v.visible[i] = true;
    ++v.count;
  }
  return v;
}

PairScore score_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b,
                          const Homography& truth, int width_a, int height_a, int width_b, int height_b,
                          Visible& va, Visible& vb) {
  PairScore s;
  s.keypoints_a = static_cast<int>(a.size());
  s.keypoints_b = static_cast<int>(b.size());
  va = common_part(a, truth, width_a, height_a, width_b, height_b);
  vb = common_part(b, inverse(truth), width_b, height_b, width_a, height_a);
  s.visible_a = va.count;
  s.visible_b = vb.count;
  // B's visible regions in A's frame, by x, for the search around each of A's.
  std::vector<size_t> by_x;
  for (size_t j = 0; j < b.size(); ++j)
    if (vb.visible[j]) by_x.push_back(j);
  std::sort(by_x.begin(), by_x.end(), [&](size_t p, size_t q) { return vb.mapped[p].x < vb.mapped[q].x; });
  std::vector<double> xs;
  for (size_t j : by_x) xs.push_back(vb.mapped[j].x);
  struct Candidate {
    double error;
    size_t i, j;
  };
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!va.visible[i]) continue;
    const Ellipse& ra = va.own[i];
    const double reach = 4 * (a[i].size / 2.0), area_a = ellipse_area(ra);
    const auto first = std::lower_bound(xs.begin(), xs.end(), ra.x - reach);
    for (auto it = first; it != xs.end() && *it < ra.x + reach; ++it) {
      const size_t j = by_x[static_cast<size_t>(it - xs.begin())];
      const Ellipse& rb = vb.mapped[j];
      if (std::hypot(rb.x - ra.x, rb.y - ra.y) >= reach) continue;
      // The intersection is at most the smaller area and the union at least
      // the larger: areas further apart than 0.6 : 1 cannot correspond. (The
      // scaling changes both areas alike.)
      const double area_b = ellipse_area(rb);
      if (std::min(area_a, area_b) < 0.6 * std::max(area_a, area_b)) continue;
      const double e = normalised_overlap_error(ra, rb);
      if (e < 0.4) candidates.push_back({e, i, j});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& p, const Candidate& q) {
    return p.error < q.error || (p.error == q.error && (p.i < q.i || (p.i == q.i && p.j < q.j)));
  });
  std::vector<bool> used_a(a.size(), false), used_b(b.size(), false);
  for (const Candidate& c : candidates) {
    if (used_a[c.i] || used_b[c.j]) continue;
    used_a[c.i] = used_b[c.j] = true;
    ++s.correspondences;
  }
  const int visible = std::min(s.visible_a, s.visible_b);
  s.repeatability = visible > 0 ? static_cast<double>(s.correspondences) / visible : 0.0;
  return s;
}

}  // namespace

Ellipse keypoint_region(const KeyPoint& k) {
  const double r = k.size / 2.0;
  return Ellipse{k.x, k.y, 1 / (r * r), 0, 1 / (r * r)};
}

bool project_region(const Ellipse& e, const Homography& h, Ellipse& out) {
  double x, y;
  apply(h, e.x, e.y, x, y);
  const std::array<double, 4> j = jacobian(h, e.x, e.y);
  // S = M^-1, then J S J^T, then its inverse.
  const double det = e.a * e.c - e.b * e.b;
  const double s11 = e.c / det, s12 = -e.b / det, s22 = e.a / det;
  const double t11 = j[0] * (j[0] * s11 + j[1] * s12) + j[1] * (j[0] * s12 + j[1] * s22);
  const double t12 = j[0] * (j[2] * s11 + j[3] * s12) + j[1] * (j[2] * s12 + j[3] * s22);
  const double t22 = j[2] * (j[2] * s11 + j[3] * s12) + j[3] * (j[2] * s12 + j[3] * s22);
  const double dt = t11 * t22 - t12 * t12;
  const Ellipse result{x, y, t22 / dt, -t12 / dt, t11 / dt};
  if (!(std::isfinite(result.x) && std::isfinite(result.y) && std::isfinite(result.a) &&
        std::isfinite(result.b) && std::isfinite(result.c) && dt > 0 && result.a > 0 &&
        result.a * result.c - result.b * result.b > 0)) {
    return false;
  }
  out = result;
  return true;
}

double ellipse_area(const Ellipse& e) { return kPi / std::sqrt(e.a * e.c - e.b * e.b); }

void ellipse_half_extents(const Ellipse& e, double& half_width, double& half_height) {
  const double det = e.a * e.c - e.b * e.b;
  half_width = std::sqrt(e.c / det);
  half_height = std::sqrt(e.a / det);
}

bool region_inside(const Ellipse& e, int width, int height) {
  double hw, hh;
  ellipse_half_extents(e, hw, hh);
  return e.x - hw > 0 && e.x + hw < width && e.y - hh > 0 && e.y + hh < height;
}

double ellipse_overlap_error(const Ellipse& p, const Ellipse& q) {
  double pw, ph, qw, qh;
  ellipse_half_extents(p, pw, ph);
  ellipse_half_extents(q, qw, qh);
  if (std::abs(p.x - q.x) >= pw + qw || std::abs(p.y - q.y) >= ph + qh) return 1.0;
  const double both = intersection_area(p, q);
  const double either = ellipse_area(p) + ellipse_area(q) - both;
  return 1.0 - both / either;
}

double normalised_overlap_error(const Ellipse& a, const Ellipse& b) {
  // Semi-axes l1, l2 of a: l1 l2 = 1 / sqrt(det M). Scaling an ellipse by f
  // about its centre divides M by f^2.
  const double radius = 1 / std::sqrt(std::sqrt(a.a * a.c - a.b * a.b));
  const double f = 30.0 / radius, g = 1 / (f * f);
  return ellipse_overlap_error(Ellipse{a.x, a.y, a.a * g, a.b * g, a.c * g},
                               Ellipse{b.x, b.y, b.a * g, b.b * g, b.c * g});
}

PairScore score_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b,
                          const Homography& truth, int width_a, int height_a, int width_b, int height_b) {
  Visible va, vb;
  return score_keypoints(a, b, truth, width_a, height_a, width_b, height_b, va, vb);
}

PairScore score_pair(const Features& a, const Features& b, const std::vector<Match>& matches,
                     const Homography& truth, int width_a, int height_a, int width_b, int height_b) {
  Visible va, vb;
  PairScore s =
      score_keypoints(a.keypoints, b.keypoints, truth, width_a, height_a, width_b, height_b, va, vb);
  s.matches = static_cast<int>(matches.size());
  std::vector<PointPair> pairs;
  std::vector<Match> correct;
  for (const Match& m : matches) {
    const auto i = static_cast<size_t>(m.query), j = static_cast<size_t>(m.train);
    const KeyPoint& ka = a.keypoints[i];
    const KeyPoint& kb = b.keypoints[j];
    const PointPair p{ka.x, ka.y, kb.x, kb.y};
    pairs.push_back(p);
    const double e = reprojection_error(truth, p);
    s.correct_3px += e < 3.0;
    s.correct_5px += e < 5.0;
    if (e < 3.0 && va.visible[i] && vb.visible[j]) correct.push_back(m);
  }
  // The score counts a keypoint once: nearest descriptors first, each match
  // whose keypoints no earlier one used.
  std::stable_sort(correct.begin(), correct.end(),
                   [](const Match& p, const Match& q) { return p.distance < q.distance; });
  std::vector<bool> used_a(a.keypoints.size(), false), used_b(b.keypoints.size(), false);
  int distinct = 0;
  for (const Match& m : correct) {
    const auto i = static_cast<size_t>(m.query), j = static_cast<size_t>(m.train);
    if (used_a[i] || used_b[j]) continue;
    used_a[i] = used_b[j] = true;
    ++distinct;
  }
  const int visible = std::min(s.visible_a, s.visible_b);
  s.matching_score = visible > 0 ? static_cast<double>(distinct) / visible : 0.0;
  s.precision = s.matches > 0 ? static_cast<double>(s.correct_3px) / s.matches : 0.0;
  const HomographyResult h = ransac_homography(pairs);
  s.homography_found = h.found;
  s.inliers = h.inlier_count;
  if (h.found) s.corner_error = corner_error(h.h, truth, width_a, height_a);
  return s;
}

}  // namespace glsurf
