#version 330 core
// extrema/max3.frag — one direction of the separable 3x3 maximum of det(H)
// (Terriberry et al. 2008, III-B.2): run along x, then along y on the result,
// it gives for each layer the largest response in the 3x3 window around each
// sample, so that the 26-neighbour test becomes three look-ups.
//
// Input:    u_source  RGBA32F, one layer per channel (det, or the x pass)
// Uniform:  u_axis    (1, 0) or (0, 1)
// Output:   RGBA32F max of source(p - axis), source(p), source(p + axis),
//           per channel; neighbours beyond the edge are left out.
// Viewport: the source's size.
#include "common/precision.glsl"

uniform sampler2D u_source;
uniform ivec2 u_axis;

layout(location = 0) out vec4 o_max;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 last = textureSize(u_source, 0) - 1;
  vec4 m = texelFetch(u_source, p, 0);
  m = max(m, texelFetch(u_source, clamp(p - u_axis, ivec2(0), last), 0));
  m = max(m, texelFetch(u_source, clamp(p + u_axis, ivec2(0), last), 0));
  o_max = m;
}
