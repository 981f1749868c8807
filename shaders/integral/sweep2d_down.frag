#version 330 core
// integral/sweep2d_down.frag — one level of the 2-D down-sweep (Terriberry et
// al. 2008, eq. 12): the exclusive 2-D prefix sum D_{k-1} from D_k.
//
// With c = p / 2 (the coarse block holding p):
//   D_{k-1}(p) = D_k(c)                                    p.x even, p.y even
//              + Y_k(c)      if p.x is odd   (column prefix of V_k: the left
//                                             column of the blocks above)
//              + X_k(c)      if p.y is odd   (row prefix of H_k: the top rows
//                                             of the blocks to the left)
//              + U_{k-1}(p - (1,1))  if both are odd (the block's own corner)
// D(x, y) is the sum over all i < x, j < y, so D_{k-1} is one texel wider and
// taller than U_{k-1}; row 0 and column 0 come out zero.
//
// Input:    u_partial    D_k   (R32UI, (w_k + 1) x (h_k + 1))
//           u_row_prefix X_k   (R32UI, (w_k + 1) x h_k): sum of H_k(i < x, y)
//           u_col_prefix Y_k   (R32UI, w_k x (h_k + 1)): sum of V_k(x, j < y)
//           u_source     U_{k-1} (R32UI; the R8 image with SOURCE_UNORM8, k = 1)
// Output:   R32UI D_{k-1}, wrapping mod 2^32.
// Viewport: (w_{k-1} + 1) x (h_{k-1} + 1).
#include "common/precision.glsl"
#include "common/integral_source.glsl"

uniform usampler2D u_partial;
uniform usampler2D u_row_prefix;
uniform usampler2D u_col_prefix;

layout(location = 0) out uint o_prefix;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 c = p >> 1;
  bool odd_x = (p.x & 1) == 1;
  bool odd_y = (p.y & 1) == 1;
  uint prefix = texelFetch(u_partial, c, 0).r;
  if (odd_x) prefix += texelFetch(u_col_prefix, c, 0).r;
  if (odd_y) prefix += texelFetch(u_row_prefix, c, 0).r;
  if (odd_x && odd_y) prefix += source_at(p - 1);
  o_prefix = prefix;
}
