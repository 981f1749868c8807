#version 330 core
// detect/nms_mark.frag — non-maximum suppression in three look-ups, marking
// the survivors in the depth buffer so that the interpolation pass
// (extrema.frag, drawn with early-Z culling) runs on them alone.
//
// A sample of layer l survives when its 3x3x3 block lies inside the image,
// det > threshold, det >= the 3x3 maximum of its own layer (it is that
// maximum) and det > the 3x3 maxima of layers l-1 and l+1. extrema.frag then
// repeats the exact strict test on the 26 neighbours, so plateaus that pass
// here (det equal to a neighbour in its own layer) are still rejected there.
//
// Inputs:   u_det                  det(H) of the group holding layer l (RGBA32F)
//           u_max_below, u_max_mid, u_max_above  3x3 maxima (max3.frag) of the
//                                  groups holding layers l-1, l, l+1
// Uniforms: u_channels  channel of layers l-1, l, l+1 in their textures
//           u_threshold, u_step, u_image_size, u_origin as extrema.frag
//           u_largest_filter  side of layer l+1's filter
// Output:   gl_FragDepth = 0 for survivors; everything else is discarded.
//           (No colour is written: the pass only marks.)
// Viewport: the octave's sample grid, at u_origin in the candidate atlas.
#include "common/precision.glsl"

uniform sampler2D u_det;
uniform sampler2D u_max_below;
uniform sampler2D u_max_mid;
uniform sampler2D u_max_above;
uniform ivec3 u_channels;
uniform float u_threshold;
uniform int u_step;
uniform int u_largest_filter;
uniform ivec2 u_image_size;
uniform ivec2 u_origin;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  int half_side = u_largest_filter / 2;
  ivec2 lo = (p - 1) * u_step, hi = (p + 1) * u_step;
  if (any(lessThan(lo, ivec2(half_side))) || any(greaterThan(hi + half_side, u_image_size - 1))) discard;
  float v = texelFetch(u_det, p, 0)[u_channels.y];
  if (!(v > u_threshold)) discard;
  if (!(v >= texelFetch(u_max_mid, p, 0)[u_channels.y])) discard;
  if (!(v > texelFetch(u_max_below, p, 0)[u_channels.x])) discard;
  if (!(v > texelFetch(u_max_above, p, 0)[u_channels.z])) discard;
  gl_FragDepth = 0.0;
}
