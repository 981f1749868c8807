#version 330 core
// integral/doubling.frag — one step of the ping-pong 2-D prefix sum used at the
// top of the pyramid, once a level is small (Terriberry et al. 2008, eq. 13):
//
//   T_{j+1}(p) = T_j(p) + T_j(p - (d,0)) + T_j(p - (0,d)) + T_j(p - (d,d)),  d = 2^j
//
// (terms outside the texture are zero). After J steps with 2^J >= the larger
// side, T_J(p) is the inclusive prefix sum of T_0.
//
// Input:    u_source  T_j (R32UI). On the first step it is U_K itself (R32UI, or
//                     the R8 image with SOURCE_UNORM8 when the whole image is
//                     small), read with u_shift = (1, 1) so that T_0(p) =
//                     U_K(p - 1): the zero row and column of the exclusive form.
// Uniform:  u_step    d = 2^j.
//           u_shift   (1, 1) on the first step, (0, 0) after.
// Output:   R32UI T_{j+1}; after the last step, D_K (exclusive prefix of U_K).
// Viewport: (w_K + 1) x (h_K + 1).
#include "common/precision.glsl"
#include "common/integral_source.glsl"

uniform int u_step;
uniform ivec2 u_shift;

layout(location = 0) out uint o_sum;

uint t(ivec2 p) { return source_at(p - u_shift); }

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  o_sum = t(p) + t(p - ivec2(u_step, 0)) + t(p - ivec2(0, u_step)) + t(p - ivec2(u_step));
}
