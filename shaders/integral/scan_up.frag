#version 330 core
// integral/scan_up.frag — one up-sweep level of Blelloch's scan along one axis
// (Terriberry et al. 2008, eqs. 3 and 5), every row (or column) at once.
//
// Input:    u_source  level m-1 of the up-sweep (R32UI; the R8 image with
//                     SOURCE_UNORM8), zero beyond its edge.
// Uniform:  u_axis    (1, 0) to sum along x, (0, 1) to sum along y.
// Output:   R32UI, level m: out(p) = in(2p) + in(2p + axis) along the axis,
//           unchanged index across it. Sums wrap mod 2^32.
// Viewport: ceil(len / 2) along the axis, the source's size across it.
#include "common/precision.glsl"
#include "common/integral_source.glsl"

uniform ivec2 u_axis;

layout(location = 0) out uint o_sum;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 first = p + p * u_axis;  // 2p along the axis
  o_sum = source_at(first) + source_at(first + u_axis);
}
