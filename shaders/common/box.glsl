// common/box.glsl — box sums from the integral image (common/integral_fetch.glsl,
// S(x, y) = sum of I(i < x, j < y) mod 2^32; see src/cpu/integral.hpp).
//
// box_sum(x0, y0, x1, y1): sum over pixels [x0, x1) x [y0, y1). Wrap-around
// arithmetic makes it exact for any box of up to 16,843,009 pixels; the
// caller keeps the corners inside [0, W] x [0, H].

#include "common/linear_fetch.glsl"
#include "common/integral_fetch.glsl"

uint box_sum(int x0, int y0, int x1, int y1) {
  return integral_at(x1, y1) - integral_at(x0, y1) - integral_at(x1, y0) + integral_at(x0, y0);
}
