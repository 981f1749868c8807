#version 330 core
// matcher/first_two.frag — the first reduction of the distance texture: the two
// train indices 2x and 2x+1 of a row as a sorted (d1, j1, d2, j2) pair, ready
// for merge_two.frag. Distances of 1e30 (excluded pairs) count as no candidate.
//
// Input:    u_distances  R32F squared distances (train x queries of the tile)
// Output:   location k: RGBA32F (d1, j1, d2, j2) of query row 8 y + k (the
//           layout of two_nearest.frag), index -1 with distance 1e30 for none
// Viewport: ceil(train count / 2) x ceil(queries / 8).
#include "common/precision.glsl"

uniform sampler2D u_distances;

#include "common/constants.h"

layout(location = 0) out vec4 o_best[kMatchQueries];


vec2 candidate(int j, int row) {
  ivec2 size = textureSize(u_distances, 0);
  if (j >= size.x || row >= size.y) return vec2(kNoCandidate, -1.0);
  float d = texelFetch(u_distances, ivec2(j, row), 0).r;
  return !(d < kNoCandidate) ? vec2(kNoCandidate, -1.0) : vec2(d, float(j));  // NaN is no candidate either
}

// a has the lower index: it goes first on equal distances.
vec4 pair(int x, int row) {
  vec2 a = candidate(2 * x, row), b = candidate(2 * x + 1, row);
  return b.x < a.x ? vec4(b, a) : vec4(a, b);
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  for (int k = 0; k < kMatchQueries; ++k) o_best[k] = pair(p.x, kMatchQueries * p.y + k);
}
