#version 330 core
// matcher/column_two.frag — the plain matcher's backward direction from the
// same distance texture (Chariot & Keriven's T_dist): for every train column,
// the two nearest queries of this query tile. The mutual check then needs no
// second distance pass.
//
// Input:    u_distances  R32F squared distances (train x queries of the tile)
// Uniforms: u_rows (queries in the tile), u_query_first (index of row 0)
// Output:   RGBA32F (d1, i1, d2, i2) per train: squared distances and query
//           indices, ties to the lower index; (1e30, -1) for no candidate
//           (excluded pairs hold 1e30; NaN never enters)
// Viewport: train count x 1.
#include "common/precision.glsl"

uniform sampler2D u_distances;
uniform int u_rows;
uniform int u_query_first;

layout(location = 0) out vec4 o_best;

#include "common/constants.h"

void main() {
  int j = int(gl_FragCoord.x);
  vec4 best = vec4(kNoCandidate, -1.0, kNoCandidate, -1.0);
  for (int row = 0; row < u_rows; ++row) {
    float d = texelFetch(u_distances, ivec2(j, row), 0).r;
    float i = float(u_query_first + row);
    if (d < best.x) {
      best = vec4(d, i, best.xy);
    } else if (d < best.z) {
      best.zw = vec2(d, i);
    }
  }
  o_best = best;
}
