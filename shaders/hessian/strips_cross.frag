#version 330 core
// hessian/strips_cross.frag — first pass of the multi-pass box filters: the
// column-prefix differences shared by every Dxy square pair of a sample row
// (the delta terms of Terriberry et al. 2008, eqs. 14-15, here with one side
// open: sums over all columns < x).
//
// For layer k (filter side L, lobe l = L / 3), at integral column x and sample
// row Y = i * step:
//   cross(x) = [S(x, Y) - S(x, Y - l)] - [S(x, Y + l + 1) - S(x, Y + 1)]
//              rows [Y-l, Y) minus rows [Y+1, Y+l+1): Dxy squares
// so that a square pair over columns [a, b) is one difference, cross(b) -
// cross(a). Unsigned wrap-around arithmetic keeps every value exact modulo
// 2^32, and every later combination too. (The Dxx and Dyy lobes' strips, one
// difference of two look-ups each, are formed where they are used,
// hessian_multipass.frag: on llvmpipe a pass and a buffer copy of their own
// cost more than those look-ups.)
//
// Input:    u_integral  (common/integral_fetch.glsl)
// Uniforms: u_step, u_filters (sides of the 4 layers; 0 = unused),
//           u_first_row: the sample row that the target's row 0 holds (the
//           strip is drawn in bands of rows, surf/hessian.hpp)
// Defines:  FIRST_LAYER  layers below it are copied from the octave before
//           (hessian_multipass.frag), so their outputs are left 0; a
//           define, not a uniform, so that the loop unrolls
// Output:   cross per layer (RGBA32UI)
// Viewport: (W + 1) x a band of the ceil(H / step) sample rows: every
//           integral column.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"
#include "common/integral_fetch.glsl"

uniform int u_step;
uniform int u_first_row;
uniform ivec4 u_filters;
#ifndef FIRST_LAYER
#define FIRST_LAYER 0
#endif

layout(location = 0) out uvec4 o_cross;

void main() {
  int x = int(gl_FragCoord.x);
  int y = (int(gl_FragCoord.y) + u_first_row) * u_step;
  uint here = integral_at(x, y), below = integral_at(x, y + 1);
  uvec4 cross = uvec4(0u);
  for (int k = FIRST_LAYER; k < 4; ++k) {
    int l = u_filters[k] / 3;
    cross[k] = (here - integral_at(x, y - l)) - (integral_at(x, y + l + 1) - below);
  }
  o_cross = cross;
}
