// CPU reference SURF detector: the same scale space, filters, threshold,
// non-maximum suppression and interpolation as the GPU detector, written
// plainly. Also the `--backend cpu` path for machines without OpenGL.
//
// Box filters for side L (lobe l = L / 3, centre c = L / 2, offsets relative
// to the centre pixel; half-open pixel ranges):
//
//   Dxx: lobes x in [-c, -c+l), [-c+l, -c+2l), [-c+2l, c+1), weights +1 -2 +1,
//        y in [-(l-1), l)  (height 2l - 1); Dyy is its transpose.
//   Dxy: l x l squares at x, y in [-l, 0) and [1, l+1), weights +1 on the
//        diagonal (top-left, bottom-right), -1 off it.
//
// Each second derivative is its box sum divided by the area of one lobe
// (Dxx, Dyy: l (2l - 1); Dxy: l^2), a mean of grey levels times the lobe
// spacing squared, so it is scale-normalised: a blob gives the same
// response at every filter size that fits it. Then
//
//   det(H) = Dxx * Dyy - w(l) * Dxy^2,  w(l) = l / (2 (2l - 1))   trace = Dxx + Dyy
//
// w balances the box filters as Bay et al.'s 0.9 does: on the raw sums the
// weight is |Dxx|_F |Lxy|_F / (|Dxy|_F |Lxx|_F) squared, with the Gaussian's
// |Lxy|_F / |Lxx|_F = 1/sqrt(3) and the box filters' Frobenius norms
// sqrt(6 l (2l - 1)) and 2l, which is (2l - 1) / (2l) (0.913^2 at L = 9,
// Bay's 0.9); divided by the two lobe areas it becomes w(l) (0.30 at L = 9,
// 0.25 for large L). Weighting the normalised Dxy by 0.81 instead penalises
// oblique and elongated structure about three times too much, which makes
// det depend on the pattern's angle to the axes, and loses correct matches
// (tools/compare_peers.py; docs/notes/keypoint-quality.md). A sample is a keypoint when det > the
// threshold, det exceeds all 26 neighbours in the 3x3x3 block of its octave
// (layers l-1, l, l+1 on the octave's sample grid, all of whose filters lie
// inside the image), and the quadratic fit of Brown & Lowe over that block
// moves it by at most kMaxInterpolationOffset = 1 sample in x, y and scale,
// as OpenCV's SURF allows. (A limit of 0.5, as OpenSURF and Sommer use,
// drops strong, well-localised extrema whose peak lies between two samples
// and lets weaker ones into a keypoint budget: 8 % fewer correct matches at
// 1,000 keypoints in the same comparison.)
#pragma once

#include <string>
#include <vector>

#include "cpu/integral.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::cpu {

// The weight of Dxy^2 in det(H) for lobe l (above); shaders/common/hessian.glsl
// computes the same value.
inline float dxy_weight(int lobe) { return static_cast<float>(lobe) / static_cast<float>(4 * lobe - 2); }
// The largest interpolation offset kept, in samples (x, y) and layers (scale).
constexpr float kMaxInterpolationOffset = 1.0f;

// det(H) and trace at every sample of one filter size and step. Samples whose
// filter does not lie inside the image are 0 and marked invalid.
struct HessianLayer {
  int width = 0, height = 0;  // samples: ceil(W / step) x ceil(H / step)
  int step = 1, filter = 9;
  std::vector<float> det, trace;
  std::vector<unsigned char> valid;
  float det_at(int i, int j) const { return det[static_cast<size_t>(i) * width + j]; }
};

HessianLayer hessian_layer(const IntegralImage& integral, int filter, int step);

// Box-filter responses at one pixel (centre) for filter side L; the filter
// must lie inside the image.
struct HessianResponse {
  float dxx, dyy, dxy;
};
HessianResponse hessian_at(const IntegralImage& integral, int x, int y, int filter);

// Host memory the detector needs at its peak, per pixel of the image: the
// image (1 byte), the integral image (4) and octave 0's layers, 9 bytes per
// sample (det, trace, valid) for n_octave_layers + 2 layers sampled every
// first_step pixels, plus 2 for the keypoints (later octaves are smaller and
// replace octave 0's): 43 bytes for the defaults, checked against the maximum
// RSS of `glsurf detect --backend cpu` (docs/notes/memory.md).
double bytes_per_pixel(const DetectorConfig& config);
// Why a width x height image does not fit in `available` bytes, or ""
// (memory_problem, surf/memory.hpp).
std::string host_memory_problem(int width, int height, const DetectorConfig& config, double available);

// Throws glsurf::Error if the image is smaller than min_image_side(config),
// or needs more memory than the kernel says is available (/proc/meminfo).
// Keeps the keypoints in `core` (a tile's, surf/tiles.hpp; max_features
// then counts only those).
std::vector<KeyPoint> detect(const GrayImage& image, const DetectorConfig& config, const TileCore& core = {});

}  // namespace glsurf::cpu
