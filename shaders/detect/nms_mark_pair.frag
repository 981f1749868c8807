#version 330 core
// detect/nms_mark_pair.frag — nms_mark.frag for both layers of a map, l and
// l+1, when layers l-1 .. l+2 lie in one group. It takes the group's maxima
// along x (max3.frag, axis (1, 0)) and finishes the 3x3 maxima along y itself,
// so the group needs no y pass: four look-ups (det, and the x maxima above, at
// and below the sample, all layers in their channels) and one draw instead of
// a y pass, eight look-ups and two draws. A sample is marked when it survives
// (detect/nms_test.glsl) in either layer; extrema.frag, drawn for each layer,
// decides which.
//
// Inputs:   u_det    det(H) of the group (RGBA32F)
//           u_max_x  its maxima along x (max3.frag)
// Uniforms: u_channel  channel of layer l (layer l-1 in u_channel - 1, l+2 in
//                      u_channel + 2)
//           u_threshold, u_step, u_image_size, u_origin as extrema.frag
//           u_largest_filters  sides of the filters of layers l+1 and l+2
// Output:   gl_FragDepth = 0 for survivors; everything else is discarded.
// Viewport: the octave's sample grid, at u_origin in the candidate atlas.
#include "common/precision.glsl"

uniform sampler2D u_det;
uniform sampler2D u_max_x;
uniform int u_channel;
uniform float u_threshold;
uniform int u_step;
uniform ivec2 u_largest_filters;
uniform ivec2 u_image_size;
uniform ivec2 u_origin;

#include "detect/nms_test.glsl"

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  ivec2 last = textureSize(u_max_x, 0) - 1;
  vec4 det = texelFetch(u_det, p, 0);
  // As max3.frag along y: rows beyond the edge are left out (clamped onto p's).
  vec4 m = max(texelFetch(u_max_x, p, 0), max(texelFetch(u_max_x, clamp(p - ivec2(0, 1), ivec2(0), last), 0),
                                              texelFetch(u_max_x, clamp(p + ivec2(0, 1), ivec2(0), last), 0)));
  int c = u_channel;
  bool first = survives(p, u_largest_filters.x, det[c], m[c - 1], m[c], m[c + 1]);
  bool second = survives(p, u_largest_filters.y, det[c + 1], m[c], m[c + 1], m[c + 2]);
  if (!(first || second)) discard;
  gl_FragDepth = 0.0;
}
