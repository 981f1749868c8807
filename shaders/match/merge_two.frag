#version 330 core
// match/merge_two.frag — one reduction level: the two nearest of two
// neighbouring blocks' candidates (four in, two out, packed in one RGBA texel
// as in Chariot & Keriven 2008). Candidates order by (distance, index), so
// equal distances keep the lower train index, as the CPU reference.
//
// Input:    u_candidates  RGBA32F (d1, j1, d2, j2) per (block, query)
// Output:   RGBA32F (d1, j1, d2, j2) for blocks 2x and 2x+1 together
// Viewport: ceil(width / 2) x queries.
#include "common/precision.glsl"

uniform sampler2D u_candidates;

layout(location = 0) out vec4 o_best;

bool before(vec2 a, vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 a = texelFetch(u_candidates, ivec2(2 * p.x, p.y), 0);
  if (2 * p.x + 1 >= textureSize(u_candidates, 0).x) {
    o_best = a;
    return;
  }
  vec4 b = texelFetch(u_candidates, ivec2(2 * p.x + 1, p.y), 0);
  // Merge two sorted pairs: the smaller head first, then the smaller of what is left.
  vec2 first, second;
  if (before(a.xy, b.xy)) {
    first = a.xy;
    second = before(a.zw, b.xy) ? a.zw : b.xy;
  } else {
    first = b.xy;
    second = before(a.xy, b.zw) ? a.xy : b.zw;
  }
  o_best = vec4(first, second);
}
