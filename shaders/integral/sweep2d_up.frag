#version 330 core
// integral/sweep2d_up.frag — one level of the 2-D up-sweep (Terriberry et al.
// 2008, eqs. 7-9): three pyramids at once through multiple render targets.
//
//   U_k(p) = U_{k-1}(2p) + U_{k-1}(2p+(1,0)) + U_{k-1}(2p+(0,1)) + U_{k-1}(2p+(1,1))
//   H_k(p) = U_{k-1}(2p) + U_{k-1}(2p+(1,0))      (top row of the 2x2 block)
//   V_k(p) = U_{k-1}(2p) + U_{k-1}(2p+(0,1))      (left column of the block)
//
// Input:    u_source  U_{k-1} (R32UI; the R8 image with SOURCE_UNORM8 when
//                     k = 1), zero beyond its edge (odd sizes).
// Output:   location 0: U_k, 1: H_k, 2: V_k, all R32UI, wrapping mod 2^32.
// Viewport: ceil(w_{k-1} / 2) x ceil(h_{k-1} / 2).
#include "common/precision.glsl"
#include "common/integral_source.glsl"

layout(location = 0) out uint o_block;
layout(location = 1) out uint o_top_row;
layout(location = 2) out uint o_left_column;

void main() {
  ivec2 q = 2 * ivec2(gl_FragCoord.xy);
  uint a = source_at(q);
  uint b = source_at(q + ivec2(1, 0));
  uint c = source_at(q + ivec2(0, 1));
  uint d = source_at(q + ivec2(1, 1));
  o_top_row = a + b;
  o_left_column = a + c;
  o_block = a + b + c + d;
}
