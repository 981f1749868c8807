#version 330 core
// detect/nms_mark_pair.frag — nms_mark.frag for both layers of a map, l and
// l+1, when layers l-1 .. l+2 are one group's four channels, x .. w (the
// only maps extrema.cpp pairs): the 3x3 maxima of all four layers come from
// the 9 det(H) texels around the sample, so the group needs no max3 passes,
// and one draw marks both layers. A sample is marked when it survives
// (detect/nms_test.glsl) in either layer; extrema.frag with PAIR decides which.
//
// Input:    u_det  det(H) of the group (RGBA32F; with LINEAR_FETCH its buffer
//                  copy, common/linear_fetch.glsl)
// Uniforms: u_threshold, u_step, u_image_size, u_origin as extrema.frag
//           u_largest_filters  sides of the filters of layers l+1 and l+2
// Output:   gl_FragDepth = 0 for survivors; everything else is discarded.
// Viewport: the octave's sample grid, at u_origin in the candidate atlas.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"

uniform SAMPLER u_det;
uniform float u_threshold;
uniform int u_step;
uniform ivec2 u_largest_filters;
uniform ivec2 u_image_size;
uniform ivec2 u_origin;

#include "detect/nms_test.glsl"

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  ivec2 grid = (u_image_size - 1) / u_step + 1;  // the octave's sample grid (hessian.hpp)
  ivec2 last = grid - 1;
  vec4 det = FETCH(u_det, p, grid.x);
  // As max3.frag: neighbours beyond the edge are left out (clamped onto p's row or column).
  vec4 m = det;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx != 0 || dy != 0) m = max(m, FETCH(u_det, clamp(p + ivec2(dx, dy), ivec2(0), last), grid.x));
    }
  }
  bool first = survives(p, u_largest_filters.x, det.y, m.x, m.y, m.z);
  bool second = survives(p, u_largest_filters.y, det.z, m.y, m.z, m.w);
  if (!(first || second)) discard;
  gl_FragDepth = 0.0;
}
