#version 330 core
// match/first_two.frag — the first reduction of the distance texture: the two
// train indices 2x and 2x+1 of a row as a sorted (d1, j1, d2, j2) pair, ready
// for merge_two.frag. Distances of 1e30 (excluded pairs) count as no candidate.
//
// Input:    u_distances  R32F squared distances (train x queries)
// Output:   RGBA32F (d1, j1, d2, j2), index -1 with distance 1e30 for none
// Viewport: ceil(train count / 2) x queries.
#include "common/precision.glsl"

uniform sampler2D u_distances;

layout(location = 0) out vec4 o_best;

const float kNone = 1e30;

vec2 candidate(int j, int row) {
  if (j >= textureSize(u_distances, 0).x) return vec2(kNone, -1.0);
  float d = texelFetch(u_distances, ivec2(j, row), 0).r;
  return d >= kNone ? vec2(kNone, -1.0) : vec2(d, float(j));
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec2 a = candidate(2 * p.x, p.y), b = candidate(2 * p.x + 1, p.y);
  // a has the lower index: it goes first on equal distances.
  o_best = b.x < a.x ? vec4(b, a) : vec4(a, b);
}
