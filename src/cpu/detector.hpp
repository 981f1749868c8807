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
// Each lobe sum is divided by the lobe's area (OpenCV's normalisation, so
// responses are in grey levels and the threshold means the same at every
// scale), and
//
//   det(H) = Dxx * Dyy - 0.81 * Dxy^2         trace = Dxx + Dyy
//
// (0.81 = 0.9^2, Bay et al.'s weight). A sample is a keypoint when det > the
// threshold, det exceeds all 26 neighbours in the 3x3x3 block of its octave
// (layers l-1, l, l+1 on the octave's sample grid, all of whose filters lie
// inside the image), and the quadratic fit of Brown & Lowe over that block
// moves it by at most 0.5 samples in x, y and scale (offsets beyond are
// dropped, as OpenSURF and Sommer do; OpenCV allows 1).
#pragma once

#include "glsurf/cpu/integral.hpp"
#include "glsurf/surf/keypoint.hpp"

#include <string>
#include <vector>

namespace glsurf::cpu {

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
// replace octave 0's). Measured for the defaults (43 bytes): maximum RSS of
// `glsurf detect --backend cpu` on noise, 41 bytes a pixel at 4096 x 4096
// with 75,436 keypoints.
double bytes_per_pixel(const DetectorConfig& config);
// Why a width x height image does not fit in `available` bytes, or ""
// (memory_problem, surf/memory.hpp).
std::string host_memory_problem(int width, int height, const DetectorConfig& config, double available);

// Throws glsurf::Error if the image is smaller than min_image_side(config),
// or needs more memory than the kernel says is available (/proc/meminfo).
std::vector<KeyPoint> detect(const GrayImage& image, const DetectorConfig& config);

}  // namespace glsurf::cpu
