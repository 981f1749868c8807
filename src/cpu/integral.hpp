// CPU reference integral image.
//
// Layout shared with the GPU stage (and with cv::integral): for an image of
// W x H pixels the integral image has (W + 1) x (H + 1) entries,
//
//     S(x, y) = sum of I(i, j) over 0 <= i < x, 0 <= j < y      (mod 2^32),
//
// so row 0 and column 0 are zero and the sum over the half-open box
// [x0, x1) x [y0, y1) is  S(x1, y1) - S(x0, y1) - S(x1, y0) + S(x0, y0)
// with no special cases at the border. Entries are 32-bit unsigned and wrap:
// a box sum computed with the same wrap-around arithmetic is exact whenever the
// true sum is below 2^32 (any box of up to 16,843,009 pixels of 8-bit data),
// however large the image and however far the corner values have wrapped.
#pragma once

#include <cstdint>
#include <vector>

#include "surf/keypoint.hpp"

namespace glsurf::cpu {

struct IntegralImage {
  int width = 0;  // of the image; the table is (width + 1) x (height + 1)
  int height = 0;
  std::vector<std::uint32_t> sums;

  std::uint32_t at(int x, int y) const { return sums[static_cast<size_t>(y) * (width + 1) + x]; }
  // Sum over [x0, x1) x [y0, y1); 0 <= x0 <= x1 <= width, 0 <= y0 <= y1 <= height.
  std::uint32_t box_sum(int x0, int y0, int x1, int y1) const {
    return at(x1, y1) - at(x0, y1) - at(x1, y0) + at(x0, y0);
  }
};

IntegralImage integral_image(const GrayImage& image);

}  // namespace glsurf::cpu
