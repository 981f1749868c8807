#version 330 core
// detect/nms_mark.frag — non-maximum suppression of one layer l in four
// look-ups, marking the survivors (detect/nms_test.glsl) in the depth buffer
// so that the interpolation pass (extrema.frag, drawn with early-Z culling)
// runs on them alone. Layers l-1 .. l+1 may lie in different groups; when a
// map's two layers and their neighbours share one group, nms_mark_pair.frag
// marks both in one draw.
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

#include "detect/nms_test.glsl"

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  if (!survives(p, u_largest_filter, texelFetch(u_det, p, 0)[u_channels.y], texelFetch(u_max_below, p, 0)[u_channels.x],
                texelFetch(u_max_mid, p, 0)[u_channels.y], texelFetch(u_max_above, p, 0)[u_channels.z]))
    discard;
  gl_FragDepth = 0.0;
}
