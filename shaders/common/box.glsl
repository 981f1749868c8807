// common/box.glsl — box sums from the integral image (R32UI, (W+1) x (H+1),
// S(x, y) = sum of I(i < x, j < y) mod 2^32; see src/cpu/integral.hpp).
//
// box_sum(x0, y0, x1, y1): sum over pixels [x0, x1) x [y0, y1). Wrap-around
// arithmetic makes it exact for any box of up to 16,843,009 pixels; the
// caller keeps the corners inside [0, W] x [0, H].

uniform usampler2D u_integral;

uint box_sum(int x0, int y0, int x1, int y1) {
  return texelFetch(u_integral, ivec2(x1, y1), 0).r - texelFetch(u_integral, ivec2(x0, y1), 0).r -
         texelFetch(u_integral, ivec2(x1, y0), 0).r + texelFetch(u_integral, ivec2(x0, y0), 0).r;
}
