#include "glsurf/eval/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace glsurf {

namespace {

constexpr double kPi = 3.14159265358979323846;

// sqrt(|det J|) of the homography at (x, y): how much it scales lengths there.
double local_scale(const Homography& h, double x, double y) {
  const std::array<double, 4> j = jacobian(h, x, y);
  return std::sqrt(std::abs(j[0] * j[3] - j[1] * j[2]));
}

bool inside(double x, double y, int w, int h) { return x >= 0 && y >= 0 && x <= w - 1 && y <= h - 1; }

}  // namespace

double circle_overlap_error(double d, double r1, double r2) {
  if (r1 <= 0 || r2 <= 0) return 1.0;
  const double small = std::min(r1, r2), large = std::max(r1, r2);
  double intersection = 0;
  if (d >= r1 + r2) {
    intersection = 0;
  } else if (d <= large - small) {
    intersection = kPi * small * small;  // one inside the other
  } else {
    const double a1 = std::acos(std::clamp((d * d + r1 * r1 - r2 * r2) / (2 * d * r1), -1.0, 1.0));
    const double a2 = std::acos(std::clamp((d * d + r2 * r2 - r1 * r1) / (2 * d * r2), -1.0, 1.0));
    intersection = r1 * r1 * (a1 - std::sin(2 * a1) / 2) + r2 * r2 * (a2 - std::sin(2 * a2) / 2);
  }
  const double united = kPi * r1 * r1 + kPi * r2 * r2 - intersection;
  return 1.0 - intersection / united;
}

PairScore score_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b, const Homography& truth,
                          int width_a, int height_a, int width_b, int height_b) {
  PairScore s;
  s.keypoints_a = static_cast<int>(a.size());
  s.keypoints_b = static_cast<int>(b.size());
  const Homography back = inverse(truth);
  std::vector<size_t> va, vb;
  for (size_t i = 0; i < a.size(); ++i) {
    double x, y;
    apply(truth, a[i].x, a[i].y, x, y);
    if (inside(x, y, width_b, height_b)) va.push_back(i);
  }
  for (size_t j = 0; j < b.size(); ++j) {
    double x, y;
    apply(back, b[j].x, b[j].y, x, y);
    if (inside(x, y, width_a, height_a)) vb.push_back(j);
  }
  s.visible_a = static_cast<int>(va.size());
  s.visible_b = static_cast<int>(vb.size());
  // Candidate pairs under 40 % overlap error, then one-to-one, best first.
  struct Candidate {
    double error;
    size_t i, j;
  };
  std::vector<Candidate> candidates;
  for (size_t i : va) {
    double x, y;
    apply(truth, a[i].x, a[i].y, x, y);
    const double ra = a[i].size / 2 * local_scale(truth, a[i].x, a[i].y);
    // Both regions are rescaled so that A's has radius 30 px, about their own
    // centres: the distance between the centres stays as it is (as in
    // Mikolajczyk's c_eoverlap and vlbenchmarks' fastEllipseOverlap). Scaling
    // it too would change nothing, since the overlap error does not change
    // when everything is scaled alike.
    const double norm = 30.0 / (a[i].size / 2);
    for (size_t j : vb) {
      const double d = std::hypot(b[j].x - x, b[j].y - y);
      const double r_a = ra * norm, r_b = b[j].size / 2 * norm;
      if (d >= r_a + r_b) continue;  // disjoint
      const double e = circle_overlap_error(d, r_a, r_b);
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

PairScore score_pair(const Features& a, const Features& b, const std::vector<Match>& matches,
                     const Homography& truth, int width_a, int height_a, int width_b, int height_b) {
  PairScore s = score_keypoints(a.keypoints, b.keypoints, truth, width_a, height_a, width_b, height_b);
  s.matches = static_cast<int>(matches.size());
  std::vector<PointPair> pairs;
  std::vector<Match> correct;
  for (const Match& m : matches) {
    const KeyPoint& ka = a.keypoints[static_cast<size_t>(m.query)];
    const KeyPoint& kb = b.keypoints[static_cast<size_t>(m.train)];
    const PointPair p{ka.x, ka.y, kb.x, kb.y};
    pairs.push_back(p);
    const double e = reprojection_error(truth, p);
    s.correct_3px += e < 3.0;
    s.correct_5px += e < 5.0;
    if (e < 3.0) correct.push_back(m);
  }
  // The score counts a keypoint once: nearest descriptors first, each match
  // whose keypoints no earlier one used.
  std::stable_sort(correct.begin(), correct.end(), [](const Match& p, const Match& q) { return p.distance < q.distance; });
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
