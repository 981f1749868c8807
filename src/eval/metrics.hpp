// Quality of a detector and matcher on an image pair with a known homography
// H (A -> B): the protocol of Mikolajczyk et al., "A comparison of affine
// region detectors" (IJCV 2005), as docs/evaluation.md describes it.
//
// Regions. A keypoint's region is the circle of radius size / 2 about it
// (OpenCV's KeyPoint convention; size is the SURF filter side L). A region is
// carried into the other image by the local affine approximation of the
// homography: its centre is mapped by H, its shape by the Jacobian J of H at
// the centre, so the ellipse (p - c)^T M (p - c) <= 1 becomes the one with
// M' = (J M^-1 J^T)^-1 (OpenCV's EllipticKeyPoint::calcProjection).
//
// Common part. A keypoint of A counts (is visible) when the axis-parallel
// bounding box of its region lies strictly inside A's frame (0, width) x
// (0, height) and the box of its region mapped by H lies inside B's; a
// keypoint of B when its box lies inside B and that of its region mapped by
// H^-1 inside A. A point that H (or H^-1) sends beyond the horizon (its
// projective coordinate w of the other sign than at the image's centre, or 0)
// is not visible. cv::evaluateFeatureDetector departs from this: it keeps the
// keypoints of A whose region lies inside A and those of B whose region
// mapped into A lies inside A, without asking whether A's lie inside B, nor
// B's inside B.
//
// Overlap. Regions are compared in A's frame: each visible region of A with
// each visible region of B mapped by H^-1, when their centres are closer than
// 4 times A's region radius. Both ellipses are first scaled about their own
// centres by f = 30 / sqrt(l1 l2), l1 and l2 the semi-axes of A's ellipse (so
// that A's has radius 30 px); the distance between the centres is kept. The
// overlap error is 1 - area(intersection) / area(union) of the two scaled
// ellipses, computed exactly (the boundary crossings found to rounding, the
// area by Green's theorem; OpenCV counts samples on a grid instead).
//
//   correspondence  = a pair with overlap error < 0.4; one-to-one: the pairs
//                     are taken by smallest error first, each keypoint in one
//                     correspondence at most (OpenCV's
//                     computeOneToOneMatchedOverlaps)
//   repeatability   = correspondences / min(visible in A, visible in B)
//   correct match   = a match whose B keypoint lies within 3 px (correct_5px:
//                     5 px, as Sommer also counts) of A's keypoint mapped by H
//   matching score  = correct matches between visible keypoints /
//                     min(visible in A, visible in B), each keypoint counted
//                     in one correct match at most (nearest descriptors
//                     first): without the mutual check several keypoints of A
//                     may match one of B
//   precision       = correct matches (3 px) / matches, over all matches
//   corner error    = largest distance between A's corners mapped by the
//                     estimated and by the true homography
#pragma once

#include <vector>

#include "glsurf/geometry.hpp"
#include "match/types.hpp"
#include "surf/keypoint.hpp"

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

// The region (p - c)^T M (p - c) <= 1 about the centre c = (x, y), with
// M = [a b; b c] symmetric positive definite.
struct Ellipse {
  double x = 0, y = 0;
  double a = 1, b = 0, c = 1;
};

// A keypoint's region: the circle of radius size / 2 about it.
Ellipse keypoint_region(const KeyPoint& k);
// The region carried by h: centre mapped, M' = (J M^-1 J^T)^-1 with J the
// Jacobian of h at the centre. False, and `out` untouched, when the result is
// not a finite ellipse (the centre on h's horizon, J singular).
bool project_region(const Ellipse& e, const Homography& h, Ellipse& out);
double ellipse_area(const Ellipse& e);
// Half the width and half the height of the ellipse's axis-parallel bounding box.
void ellipse_half_extents(const Ellipse& e, double& half_width, double& half_height);
// Whether the bounding box lies strictly inside (0, width) x (0, height).
bool region_inside(const Ellipse& e, int width, int height);
// 1 - area(p and q) / area(p or q), exact to rounding.
double ellipse_overlap_error(const Ellipse& p, const Ellipse& q);
// The protocol's overlap error of region a (image A) and region b (of image
// B, mapped into A): both scaled about their centres so that a has radius
// 30 px (sqrt of its semi-axes' product), the distance between the centres
// kept; then ellipse_overlap_error.
double normalised_overlap_error(const Ellipse& a, const Ellipse& b);

// Repeatability part of the score (keypoint counts, visibility, correspondences).
PairScore score_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b,
                          const Homography& truth, int width_a, int height_a, int width_b, int height_b);

// The whole score: keypoints, then matches and the estimated homography.
PairScore score_pair(const Features& a, const Features& b, const std::vector<Match>& matches,
                     const Homography& truth, int width_a, int height_a, int width_b, int height_b);

}  // namespace glsurf
