// Homography from point correspondences: normalised DLT (Hartley) inside
// RANSAC, then a least-squares refit on the inliers (CPU; double precision).
//
// H maps a point of image A to image B: (x', y', w') = H (x, y, 1), the
// convention of the Oxford sequences' H1toNp files.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace glsurf {

using Homography = std::array<double, 9>;  // row-major

struct PointPair {
  double ax, ay, bx, by;
};

struct RansacConfig {
  double threshold = 3.0;  // reprojection error in pixels for an inlier
  int max_iterations = 5000;
  double confidence = 0.999;  // stop when this sure of an all-inlier sample
  std::uint32_t seed = 1;     // fixed: results are repeatable
  // Fewer inliers than this is no homography. Any 4 pairs in general position
  // fit one exactly, so 4 inliers say nothing, and between unrelated images a
  // hypothesis picks up a chance inlier or two (3-5 of 13-42 matches were
  // seen); 4 supporting pairs beyond the sample make that unlikely. Pairs
  // repeated exactly count once.
  int min_inliers = 8;
};

struct HomographyResult {
  bool found = false;  // at least min_inliers inliers
  Homography h{};
  std::vector<bool> inliers;  // per pair; all false when not found
  int inlier_count = 0;       // of the best fit, also one with too few to count
};

// Least squares over all pairs (>= 4), normalised DLT; false if degenerate:
// when the pairs do not determine one map (three of four points on a line,
// all on one line, repeated points) or the map is singular.
bool fit_homography(const std::vector<PointPair>& pairs, Homography& h);
HomographyResult ransac_homography(const std::vector<PointPair>& pairs, const RansacConfig& config = {});

void apply(const Homography& h, double x, double y, double& ox, double& oy);
// The derivative of apply's (ox, oy) by (x, y) at (x, y), row-major:
// {dox/dx, dox/dy, doy/dx, doy/dy}.
std::array<double, 4> jacobian(const Homography& h, double x, double y);
// The product a b: the map that applies b, then a.
Homography multiply(const Homography& a, const Homography& b);
// By the adjugate; the caller makes sure h is not singular (is_singular).
Homography inverse(const Homography& h);

// The scale of h, which is defined up to one: the largest magnitude of its
// linear part and h[8]. The translation is left out: it is in pixels, and a
// 0.1x zoom of a large image has h[2] ~ 2700 beside h[0] = 0.1.
double homography_scale(const Homography& h);
// Whether h maps the plane to a line or a point (or is not finite), judged at
// homography_scale.
bool is_singular(const Homography& h);

// Reads 9 numbers: an Oxford-style text file (3 lines of 3) or an OpenCV
// FileStorage XML/YAML file (the numbers of its <data> element), scaled by a
// power of two if its scale is beyond 2^+-64. Throws glsurf::Error naming the
// file otherwise.
Homography read_homography_file(const std::string& path);
// Three lines of three numbers (the Oxford format), written atomically.
void write_homography_file(const std::string& path, const Homography& h);
void write_homography(std::ostream& out, const Homography& h);
double reprojection_error(const Homography& h, const PointPair& p);
// Whether h sends part of a width x height image to infinity: its projective
// coordinate is not non-zero and of one sign at the centres of the corner
// pixels, so its horizon crosses (or touches) the image.
bool horizon_crosses(const Homography& h, int width, int height);
// The largest distance between the corners of a width x height image A (the
// centres of its corner pixels) mapped by `estimate` and by `truth`. NaN when
// horizon_crosses(truth, ...): then A's corners have no true place in B, and
// there is no corner error to give. An estimate that sends a corner itself to
// infinity (w = 0 there) gives infinity; one whose horizon merely crosses A
// gives a large finite error.
double corner_error(const Homography& estimate, const Homography& truth, int width, int height);

}  // namespace glsurf
