#version 330 core
// integral/scan_down.frag — one down-sweep level of Blelloch's scan along one
// axis (Terriberry et al. 2008, eqs. 4 and 6): the exclusive prefix sum
// ("prescan") of level m from that of level m+1.
//
//   D_m(i) = D_{m+1}(i / 2)                   i even
//   D_m(i) = D_{m+1}(i / 2) + U_m(i - 1)      i odd        (i along the axis)
//
// Input:    u_partial D_{m+1} (R32UI), len_{m+1} + 1 along the axis. Absent in
//                     the TOP_LEVEL variant, where D_{m+1} = 0 (len_m = 1).
//           u_source  U_m, the up-sweep level m (R32UI; the R8 image with
//                     SOURCE_UNORM8 when m = 0).
// Uniform:  u_axis    (1, 0) for rows, (0, 1) for columns.
// Output:   R32UI D_m(i) = sum of U_m(0 .. i-1): one more entry along the axis
//           than U_m, so the last entry holds the whole row (column) total.
// Viewport: len_m + 1 along the axis, the source's size across it.
#include "common/precision.glsl"
#include "common/integral_source.glsl"

#ifndef TOP_LEVEL
uniform usampler2D u_partial;
#endif
uniform ivec2 u_axis;

layout(location = 0) out uint o_prefix;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
#ifdef TOP_LEVEL
  uint prefix = 0u;
#else
  uint prefix = texelFetch(u_partial, p >> u_axis, 0).r;  // halve the index along the axis
#endif
  int along = p.x * u_axis.x + p.y * u_axis.y;  // index along the axis
  if ((along & 1) == 1) prefix += source_at(p - u_axis);
  o_prefix = prefix;
}
