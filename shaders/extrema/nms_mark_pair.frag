#version 330 core
// extrema/nms_mark_pair.frag — nms_mark.frag for both layers of a map, l and
// l+1, when layers l-1 .. l+2 are one group's four channels, x .. w (the
// only maps extrema.cpp pairs): the 3x3 maxima of all four layers come from
// the 9 det(H) texels around the sample, so the group needs no max3 passes,
// and one draw marks both layers. One fragment per cell of 2 x 2 samples, as
// extrema.frag: a cell is marked when one of its samples survives
// (extrema/nms_test.glsl) in either layer; extrema.frag with PAIR decides which.
//
// Input:    u_det  det(H) of the group (RGBA32F; with LINEAR_FETCH its buffer
//                  copy, common/linear_fetch.glsl)
// Uniforms: u_threshold, u_step, u_image_size, u_origin as extrema.frag
//           u_largest_filters  sides of the filters of layers l+1 and l+2
// Output:   gl_FragDepth = 0 for cells with a survivor; everything else is
//           discarded.
// Viewport: the octave's cells, at u_origin in the candidate atlas.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"

uniform SAMPLER u_det;
uniform float u_threshold;
uniform int u_step;
uniform ivec2 u_largest_filters;
uniform ivec2 u_image_size;
uniform ivec2 u_origin;

#include "extrema/nms_test.glsl"

void main() {
  ivec2 p0 = 2 * (ivec2(gl_FragCoord.xy) - u_origin);  // the cell's first sample
  ivec2 grid = (u_image_size - 1) / u_step + 1;  // the octave's sample grid (hessian.hpp)
  ivec2 last = grid - 1;
  // The 4 x 4 samples from p0 - 1 to p0 + 2. As max3.frag: neighbours beyond
  // the edge are left out (clamped onto a sample's row or column); a cell's
  // samples past the grid fail the border test.
  vec4 b[16];
  for (int t = 0; t < 16; ++t) b[t] = FETCH(u_det, clamp(p0 + ivec2(t % 4 - 1, t / 4 - 1), ivec2(0), last), grid.x);
  // The rows' maxima of three, row[r * 2 + x] for the 4 rows and the 2
  // columns of samples; a sample's 3x3 maximum is three of them.
  vec4 row[8];
  for (int r = 0; r < 4; ++r) {
    for (int x = 0; x < 2; ++x) row[r * 2 + x] = max(max(b[r * 4 + x], b[r * 4 + x + 1]), b[r * 4 + x + 2]);
  }
  bool any_survives = false;
  for (int s = 0; s < 4; ++s) {
    int o = (s >> 1) * 4 + (s & 1);  // the sample's 3x3 block is b[o .. o + 10]
    ivec2 p = p0 + ivec2(s & 1, s >> 1);
    vec4 det = b[o + 5];
    int r = (s >> 1) * 2 + (s & 1);
    vec4 m = max(max(row[r], row[r + 2]), row[r + 4]);
    any_survives = any_survives || survives(p, u_largest_filters.x, det.y, m.x, m.y, m.z) ||
                   survives(p, u_largest_filters.y, det.z, m.y, m.z, m.w);
  }
  if (!any_survives) discard;
  gl_FragDepth = 0.0;
}
