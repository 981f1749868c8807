#version 330 core
// matcher/merge_two.frag — one reduction level: the two nearest of two
// neighbouring blocks' candidates (four in, two out, packed in one RGBA texel
// as in Chariot & Keriven 2008). Candidates order by (distance, index), so
// equal distances keep the lower train index, as the CPU reference.
//
// Inputs:   u_candidates0..7  RGBA32F (d1, j1, d2, j2) per (block, row),
//                             one texture per query of a fragment of
//                             two_nearest.frag
// Output:   location k: RGBA32F (d1, j1, d2, j2) of blocks 2x and 2x+1
//           together, for input k
// Viewport: ceil(width / 2) x rows.
#include "common/precision.glsl"

uniform sampler2D u_candidates0;
uniform sampler2D u_candidates1;
uniform sampler2D u_candidates2;
uniform sampler2D u_candidates3;
uniform sampler2D u_candidates4;
uniform sampler2D u_candidates5;
uniform sampler2D u_candidates6;
uniform sampler2D u_candidates7;

layout(location = 0) out vec4 o_best[8];

bool before(vec2 a, vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

// Merge two sorted pairs: the smaller head first, then the smaller of what is left.
vec4 merge(vec4 a, vec4 b) {
  if (before(a.xy, b.xy)) return vec4(a.xy, before(a.zw, b.xy) ? a.zw : b.xy);
  return vec4(b.xy, before(a.xy, b.zw) ? a.xy : b.zw);
}

vec4 merged(sampler2D candidates, ivec2 p) {
  vec4 a = texelFetch(candidates, ivec2(2 * p.x, p.y), 0);
  if (2 * p.x + 1 >= textureSize(candidates, 0).x) return a;
  return merge(a, texelFetch(candidates, ivec2(2 * p.x + 1, p.y), 0));
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  // (One line each: GLSL 3.30 indexes sampler arrays by constants only.)
  o_best[0] = merged(u_candidates0, p);
  o_best[1] = merged(u_candidates1, p);
  o_best[2] = merged(u_candidates2, p);
  o_best[3] = merged(u_candidates3, p);
  o_best[4] = merged(u_candidates4, p);
  o_best[5] = merged(u_candidates5, p);
  o_best[6] = merged(u_candidates6, p);
  o_best[7] = merged(u_candidates7, p);
}
