#version 330 core
// detect/max3.frag — one direction of the separable 3x3 maximum of det(H)
// (Terriberry et al. 2008, III-B.2): run along x, then along y on the result,
// it gives for each layer the largest response in the 3x3 window around each
// sample, so that the 26-neighbour test becomes three look-ups.
//
// Input:    u_source  RGBA32F, one layer per channel: with PLANES det(H)'s
//                     planes (common/planes.glsl, the x pass), otherwise the
//                     x pass's result, a texel per sample
// Uniforms: u_axis    (1, 0) or (0, 1)
//           u_grid    the octave's sample grid
// Output:   RGBA32F max of source(p - axis), source(p), source(p + axis),
//           per channel; neighbours beyond the edge are left out.
// Viewport: the grid.
#include "common/precision.glsl"
#include "common/planes.glsl"

#ifdef PLANES
uniform sampler2DArray u_source;
#define SOURCE(p) plane_texel(u_source, p)
#else
uniform sampler2D u_source;
#define SOURCE(p) texelFetch(u_source, p, 0)
#endif
uniform ivec2 u_axis;
uniform ivec2 u_grid;

layout(location = 0) out vec4 o_max;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 last = u_grid - 1;
  vec4 m = SOURCE(p);
  m = max(m, SOURCE(clamp(p - u_axis, ivec2(0), last)));
  m = max(m, SOURCE(clamp(p + u_axis, ivec2(0), last)));
  o_max = m;
}
