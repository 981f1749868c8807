// Two-view geometry from point correspondences (CPU; double precision):
//
// - the homography: normalised DLT (Hartley) inside RANSAC, then a
//   least-squares refit on the inliers. H maps a point of image A to image B:
//   (x', y', w') = H (x, y, 1), the convention of the Oxford sequences'
//   H1toNp files.
// - the fundamental matrix: the 7-point solver inside RANSAC, inliers by
//   Sampson distance, a normalised 8-point least-squares refit (rank 2
//   enforced) on the inliers as local optimisation. F relates a point of A to
//   one of B as H does: x_b^T F x_a = 0 for (x, y, 1) of each.
// - the two-view configuration COLMAP 3.8 gives an uncalibrated pair
//   (estimate_two_view_geometry): F and H both estimated, the planar or
//   panoramic case told from the ratio of their inlier counts.
//
// Points are in glsurf's image coordinates (origin at the centre of the
// top-left pixel, x right, y down); every error is in pixels of B or A.
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

// ---------------------------------------------------------------------------
// Fundamental matrix

using Fundamental = std::array<double, 9>;  // row-major, x_b^T F x_a = 0; unit Frobenius norm

// The Sampson distance of a pair under f, in pixels: the square root of the
// Sampson approximation of the squared geometric error,
//   (x_b^T F x_a)^2 / ((F x_a)_1^2 + (F x_a)_2^2 + (F^T x_b)_1^2 + (F^T x_b)_2^2),
// the first-order distance of (ax, ay, bx, by) in R^4 to the nearest pair
// that satisfies f exactly. COLMAP's residual is its square
// (ComputeSquaredSampsonError, compared with max_error^2). 1e300 where it is
// not finite (a pair at both epipoles, a zero f).
double sampson_error(const Fundamental& f, const PointPair& p);

// Least squares over all pairs (>= 8): the normalised 8-point algorithm
// (Hartley), the smallest right singular vector of the 8-point system, then
// rank 2 enforced (the nearest rank-2 matrix in Frobenius norm). False when
// degenerate: the pairs leave more than one F (fewer than 8 in general
// position: all on a line, repeated points, ...) or the fit is not finite.
bool fit_fundamental(const std::vector<PointPair>& pairs, Fundamental& f);
// The 7-point minimal solver on exactly 7 pairs: the two-dimensional null
// space F1, F2 of the normalised system, and each real root a of the cubic
// det(a F1 + (1 - a) F2) = 0. 1 to 3 matrices, none when the 7 pairs leave a
// larger null space (degenerate: collinear or repeated points).
std::vector<Fundamental> seven_point_fundamentals(const std::vector<PointPair>& pairs);

struct FundamentalResult {
  bool found = false;  // at least config.min_inliers inliers
  Fundamental f{};
  std::vector<bool> inliers;  // per pair; all false when not found
  int inlier_count = 0;       // of the best fit, also one with too few to count
};

// RANSAC settings for a fundamental matrix: threshold 3 px (Sampson
// distance), up to 10000 iterations, confidence 0.999, and at least 15
// inliers (COLMAP's min_num_inliers): a 7-point sample always fits exactly,
// and the epipolar constraint is a band, not a point, so chance inliers come
// easier than for a homography.
RansacConfig fundamental_ransac_config();

// RANSAC over 7-point samples (each gives 1-3 candidates); a pair is an inlier
// when its Sampson distance is below config.threshold. Iterations adapt to the
// inlier ratio w: log(1 - confidence) / log(1 - w^7). Each new best model is
// refitted by least squares (fit_fundamental) on its inliers, again while
// the inlier set grows (local optimisation, at most 10 rounds), and the final
// model once more the same way. Fixed seed: repeatable. Pairs repeated exactly
// count once towards min_inliers.
FundamentalResult ransac_fundamental(const std::vector<PointPair>& pairs,
                                     const RansacConfig& config = fundamental_ransac_config());

// Three lines of three numbers, as write_homography.
void write_fundamental(std::ostream& out, const Fundamental& f);
void write_fundamental_file(const std::string& path, const Fundamental& f);

// ---------------------------------------------------------------------------
// Two-view configuration (COLMAP 3.8, TwoViewGeometry::EstimateUncalibrated)

// COLMAP's TwoViewGeometry::ConfigurationType, with its values.
enum class TwoViewConfiguration {
  undefined = 0,
  degenerate = 1,           // too few matches or inliers
  calibrated = 2,           // essential matrix (needs intrinsics; not estimated here)
  uncalibrated = 3,         // fundamental matrix
  planar = 4,               // homography, planar scene with baseline (needs intrinsics)
  panoramic = 5,            // homography, pure rotation (needs intrinsics)
  planar_or_panoramic = 6,  // homography, planar or panoramic
  watermark = 7,            // pure translation in the image borders (not detected here)
  multiple = 8,             // several models (not estimated here)
};
// "uncalibrated", "planar or panoramic", ...
const char* to_string(TwoViewConfiguration c);

// COLMAP 3.8's defaults for feature matching (SiftMatchingOptions, which
// exhaustive_matcher and friends hand to TwoViewGeometry).
struct TwoViewOptions {
  int min_num_inliers = 15;  // fewer matches, or fewer inliers of F and of H: degenerate
  // An inlier is within max_error pixels: Sampson distance for F, transfer
  // error in B for H. COLMAP compares the squared residuals with
  // max_error^2, the same set.
  double max_error = 4.0;
  double confidence = 0.999;
  int max_num_trials = 10000;
  // H explains the pairs as well as F (planar scene or pure rotation) when
  // H's inliers are more than this fraction of F's.
  double max_h_inlier_ratio = 0.8;
  std::uint32_t seed = 1;
};

struct TwoViewGeometry {
  TwoViewConfiguration configuration = TwoViewConfiguration::undefined;
  bool f_found = false, h_found = false;  // each RANSAC had at least its sample's size of inliers
  Fundamental f{};
  Homography h{};
  int f_inlier_count = 0, h_inlier_count = 0;
  // The chosen model's inliers: H's when planar or panoramic and H has at
  // least as many as F, else F's; all false when degenerate.
  bool inliers_from_h = false;
  std::vector<bool> inliers;
  int inlier_count = 0;
};

// The decision of COLMAP 3.8's TwoViewGeometry::EstimateUncalibrated:
//   fewer than min_num_inliers pairs                        -> degenerate
//   F and H both failed, or both below min_num_inliers      -> degenerate
//   H inliers / F inliers > max_h_inlier_ratio              -> planar_or_panoramic
//   otherwise                                               -> uncalibrated
// The inliers are F's, or H's when planar or panoramic and H has at least as
// many. Watermark detection (it needs the image sizes) and relative pose are
// left out. The RANSACs are glsurf's (ransac_fundamental, ransac_homography
// at max_error), not COLMAP's LO-RANSAC to the letter: COLMAP also runs at
// least 100 trials, multiplies the adaptive count by 3, caps it by an assumed
// inlier ratio of 0.25, and breaks ties in the inlier count by the sum of
// squared residuals; the local optimisation (least squares on the inliers
// while they grow, at most 10 rounds) is the same idea.
TwoViewGeometry estimate_two_view_geometry(const std::vector<PointPair>& pairs,
                                           const TwoViewOptions& options = {});

}  // namespace glsurf
