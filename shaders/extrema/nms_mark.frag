#version 330 core
// extrema/nms_mark.frag — non-maximum suppression of one layer l in four
// look-ups per sample, marking the cells (2 x 2 samples, extrema.frag) that
// hold a survivor (extrema/nms_test.glsl) in the depth buffer so that the
// interpolation pass (extrema.frag, drawn with early-Z culling) runs on them
// alone. Layers l-1 .. l+1 may lie in different groups; when a
// map's two layers and their neighbours share one group, nms_mark_pair.frag
// marks both in one draw.
//
// Inputs:   u_det                  det(H) of the group holding layer l (RGBA32F)
//           u_max_below, u_max_mid, u_max_above  3x3 maxima (max3.frag) of the
//                                  groups holding layers l-1, l, l+1
// Uniforms: u_channels  channel of layers l-1, l, l+1 in their textures
//           u_threshold, u_step, u_image_size, u_origin as extrema.frag
//           u_largest_filter  side of layer l+1's filter
// Output:   gl_FragDepth = 0 for cells with a survivor; everything else is
//           discarded. (No colour is written: the pass only marks.)
// Viewport: the octave's cells, at u_origin in the candidate atlas.
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

#include "extrema/nms_test.glsl"

void main() {
  ivec2 p0 = 2 * (ivec2(gl_FragCoord.xy) - u_origin);  // the cell's first sample
  // A cell's samples past the grid fail the border test (their look-ups
  // are clamped into the grid).
  ivec2 last = (u_image_size - 1) / u_step;
  bool any_survives = false;
  for (int s = 0; s < 4; ++s) {
    ivec2 p = p0 + ivec2(s & 1, s >> 1);
    ivec2 q = min(p, last);
    any_survives = any_survives ||
                   survives(p, u_largest_filter, texelFetch(u_det, q, 0)[u_channels.y],
                            texelFetch(u_max_below, q, 0)[u_channels.x], texelFetch(u_max_mid, q, 0)[u_channels.y],
                            texelFetch(u_max_above, q, 0)[u_channels.z]);
  }
  if (!any_survives) discard;
  gl_FragDepth = 0.0;
}
