#version 330 core
// matcher/two_nearest.frag — the fused distance pass (beyond Chariot & Keriven
// 2008, who write the whole distance texture first): each fragment compares
// kMatchQueries query descriptors with a block of u_block train descriptors and
// keeps each query's two nearest, so the m_I x m_J distance texture is never
// written. Each train texel is fetched once for all kMatchQueries queries.
//
// Descriptors: TEXELS = D/4 texels each (a #define, 1 to 32); queries in a
// 1024-wide texture, descriptor i's texel t at linear index i * TEXELS + t
// (common/blocks.glsl); trains u_train_first .. in a buffer texture, train
// j's texel t at u_train_offset + (j - u_train_first) * TEXELS + t (a linear
// look-up costs llvmpipe about a third less than a 2-D one).
// Signs: one texel per descriptor (R32F, +1 / -1 Laplacian).
//
// Inputs:   u_query                     query descriptors (RGBA32F)
//           u_trains                    train descriptors (RGBA32F buffer texture)
//           u_query_signs, u_train_signs  Laplacian signs (R32F)
// Uniforms: u_train_first, u_train_offset  the trains in u_trains (above)
//           u_block, u_train_count, u_query_first (first query of
//           this tile), u_query_count (queries in the tile), u_laplacian (1:
//           other-sign candidates are skipped), u_train_plus (>= 0: the
//           trains are sorted by sign, [0, u_train_plus) positive; with
//           u_laplacian, a fragment whose queries share one sign compares
//           only the trains of that sign; -1: not sorted)
// Output:   location k (k < kMatchQueries): RGBA32F (d1, j1, d2, j2) of query
//           u_query_first + kMatchQueries * row + k: squared distances and train
//           indices of the best and second best in the block, ties to the
//           lower index; (1e30, -1) where there is no candidate or no query.
//           NaN distances never enter (the comparisons below are false).
// Viewport: ceil(train count / block) x ceil(queries in the tile / kMatchQueries);
//           texel (b, row) covers block b; one draw per train chunk, over
//           that chunk's blocks.
#include "common/precision.glsl"
#include "common/blocks.glsl"

#include "common/constants.h"
#if !defined(TEXELS) || TEXELS < 1 || TEXELS > 32
#error "define TEXELS, the texels per descriptor, 1 to 32"
#endif

uniform sampler2D u_query;
uniform samplerBuffer u_trains;
uniform sampler2D u_query_signs;
uniform sampler2D u_train_signs;
uniform int u_block;
uniform int u_train_count;
uniform int u_train_first;
uniform int u_train_offset;
uniform int u_query_first;
uniform int u_query_count;
uniform int u_laplacian;
uniform int u_train_plus;

layout(location = 0) out vec4 o_best[kMatchQueries];


void main() {
  int block = int(gl_FragCoord.x);
  int local = kMatchQueries * int(gl_FragCoord.y);  // first query of this fragment, within the tile
  vec4 q[kMatchQueries * TEXELS];
  float sign[kMatchQueries];
  bool present[kMatchQueries];
  for (int k = 0; k < kMatchQueries; ++k) {
    present[k] = local + k < u_query_count;
    int query = u_query_first + min(local + k, u_query_count - 1);
    sign[k] = texelFetch(u_query_signs, texel_of(query), 0).r;
    for (int t = 0; t < TEXELS; ++t) q[k * TEXELS + t] = texelFetch(u_query, texel_of(query * TEXELS + t), 0);
  }
  vec4 best[kMatchQueries];
  for (int k = 0; k < kMatchQueries; ++k) best[k] = vec4(kNoCandidate, -1.0, kNoCandidate, -1.0);
  int first = block * u_block;
  int last = min(first + u_block, u_train_count);
  if (u_laplacian == 1 && u_train_plus >= 0) {
    bool all_plus = true, all_minus = true;
    for (int k = 0; k < kMatchQueries; ++k) {
      all_plus = all_plus && (!present[k] || sign[k] > 0.0);
      all_minus = all_minus && (!present[k] || sign[k] < 0.0);
    }
    if (all_plus) last = min(last, u_train_plus);
    if (all_minus) first = max(first, u_train_plus);
  }
  for (int j = first; j < last; ++j) {
    float train_sign = texelFetch(u_train_signs, texel_of(j), 0).r;
    int base = u_train_offset + (j - u_train_first) * TEXELS;
    vec4 d2 = vec4(0.0), d2_high = vec4(0.0);  // one squared distance per query: 0..3, 4..7
    // Written out for t = 0 .. 31 (the conditions fold away): llvmpipe's
    // compiler leaves a loop over t rolled, and q[] indexed by a variable
    // then lives in memory instead of registers (2.2x slower).
    // (Q keeps the dead steps' indices in range: they must still compile.)
    // (One line per macro: GLSL 3.30 has no line continuation.)
#define Q(k, t) q[(k) * TEXELS + ((t) < TEXELS ? (t) : 0)]
#define COMPARE(t) if ((t) < TEXELS) { vec4 d = texelFetch(u_trains, base + (t)); vec4 e0 = Q(0, t) - d, e1 = Q(1, t) - d, e2 = Q(2, t) - d, e3 = Q(3, t) - d, e4 = Q(4, t) - d, e5 = Q(5, t) - d, e6 = Q(6, t) - d, e7 = Q(7, t) - d; d2 += vec4(dot(e0, e0), dot(e1, e1), dot(e2, e2), dot(e3, e3)); d2_high += vec4(dot(e4, e4), dot(e5, e5), dot(e6, e6), dot(e7, e7)); }
    COMPARE(0) COMPARE(1) COMPARE(2) COMPARE(3) COMPARE(4) COMPARE(5) COMPARE(6) COMPARE(7)
    COMPARE(8) COMPARE(9) COMPARE(10) COMPARE(11) COMPARE(12) COMPARE(13) COMPARE(14) COMPARE(15)
    COMPARE(16) COMPARE(17) COMPARE(18) COMPARE(19) COMPARE(20) COMPARE(21) COMPARE(22) COMPARE(23)
    COMPARE(24) COMPARE(25) COMPARE(26) COMPARE(27) COMPARE(28) COMPARE(29) COMPARE(30) COMPARE(31)
    // Written out per query, like COMPARE (best[] indexed by a variable would
    // live in memory).
#define UPDATE(k, d) if (u_laplacian == 0 || train_sign == sign[k]) { if (d < best[k].x) best[k] = vec4(d, float(j), best[k].xy); else if (d < best[k].z) best[k].zw = vec2(d, float(j)); }
    UPDATE(0, d2.x) UPDATE(1, d2.y) UPDATE(2, d2.z) UPDATE(3, d2.w)
    UPDATE(4, d2_high.x) UPDATE(5, d2_high.y) UPDATE(6, d2_high.z) UPDATE(7, d2_high.w)
  }
  for (int k = 0; k < kMatchQueries; ++k) o_best[k] = present[k] ? best[k] : vec4(kNoCandidate, -1.0, kNoCandidate, -1.0);
}
