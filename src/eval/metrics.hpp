// Quality of a detector and matcher on an image pair with a known homography,
// the protocol of Mikolajczyk et al. (2005) that Sommer's thesis follows.
//
// Regions: a keypoint's region is the circle of radius size / 2 around it. A
// region of image A is carried into B by the homography H (A -> B) as a
// circle whose radius is scaled by sqrt(|det J|), J the Jacobian of H at the
// point (circles of the keypoint scale; the ellipse H really makes is not
// modelled). As in Mikolajczyk's evaluation, both circles are first rescaled
// about their centres so that A's has radius 30 px, and the distance between
// the centres is left as it is: a centre off by a few pixels then costs a small
// region no more than a large one (without the rescaling, small regions
// would need far more precise positions than large ones to count).
//
// Overlap error of a pair: 1 - (intersection area / union area) of the two
// circles. Visible: a keypoint of A whose position maps inside B, and a
// keypoint of B whose position maps (by H^-1) inside A.
//
//   repeatability   = correspondences / min(visible in A, visible in B), where
//                     correspondences are pairs with overlap error < 40 %,
//                     each keypoint used once (smallest error first)
//   correct match   = a match whose B keypoint lies within 3 px (and, as
//                     Sommer counts, within 5 px) of A's keypoint mapped by H
//   matching score  = correct matches (3 px) / min(visible in A, visible in B),
//                     each keypoint counted in one correct match at most
//                     (nearest first): without the mutual check several
//                     keypoints of A may match one of B, and the score would
//                     pass 1
//   precision       = correct matches (3 px) / matches
//   corner error    = largest distance between A's corners mapped by the
//                     estimated and by the true homography
#pragma once

#include "glsurf/match/homography.hpp"
#include "glsurf/match/types.hpp"
#include "glsurf/surf/keypoint.hpp"

#include <vector>

namespace glsurf {

struct PairScore {
  int keypoints_a = 0, keypoints_b = 0;
  int visible_a = 0, visible_b = 0;
  int correspondences = 0;
  double repeatability = 0;
  int matches = 0, correct_3px = 0, correct_5px = 0;
  double matching_score = 0, precision = 0;
  bool homography_found = false;
  int inliers = 0;
  // -1 when no homography was found; otherwise glsurf::corner_error (NaN when
  // the truth sends part of A to infinity, infinite when the estimate sends a
  // corner there).
  double corner_error = -1;
};

// 1 - intersection / union of two circles (centres d apart, radii r1, r2).
double circle_overlap_error(double d, double r1, double r2);

// Repeatability part of the score (keypoint counts, visibility, correspondences).
PairScore score_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b, const Homography& truth,
                          int width_a, int height_a, int width_b, int height_b);

// The whole score: keypoints, then matches and the estimated homography.
PairScore score_pair(const Features& a, const Features& b, const std::vector<Match>& matches,
                     const Homography& truth, int width_a, int height_a, int width_b, int height_b);

}  // namespace glsurf
