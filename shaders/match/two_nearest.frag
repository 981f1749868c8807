#version 330 core
// match/two_nearest.frag — the fused distance pass (beyond Chariot & Keriven
// 2008, who write the whole distance texture first): each fragment compares
// one query descriptor with a block of u_block train descriptors and keeps
// the two nearest, so the m_I x m_J distance texture is never written.
//
// Descriptors: D/4 texels each (u_texels), in 1024-wide textures, descriptor
// i's texel t at linear index i * u_texels + t (common/blocks.glsl). Signs:
// one texel per descriptor (R32F, +1 / -1 Laplacian).
//
// Inputs:   u_query, u_train            descriptors (RGBA32F)
//           u_query_signs, u_train_signs  Laplacian signs (R32F)
// Uniforms: u_texels, u_block, u_train_count, u_query_first (first query of
//           this tile), u_query_count (queries in the tile), u_laplacian (1:
//           other-sign candidates are skipped)
// Output:   RGBA32F (d1, j1, d2, j2): squared distances and train indices of
//           the best and second best in the block, ties to the lower index;
//           (1e30, -1) where there is no candidate.
// Viewport: ceil(train count / block) x queries in the tile; texel (b, r) is
//           query u_query_first + r against block b.
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_query;
uniform sampler2D u_train;
uniform sampler2D u_query_signs;
uniform sampler2D u_train_signs;
uniform int u_texels;
uniform int u_block;
uniform int u_train_count;
uniform int u_query_first;
uniform int u_laplacian;

layout(location = 0) out vec4 o_best;

const float kNone = 1e30;

void main() {
  int block = int(gl_FragCoord.x);
  int query = u_query_first + int(gl_FragCoord.y);
  vec4 q[32];
  for (int t = 0; t < u_texels; ++t) q[t] = texelFetch(u_query, texel_of(query * u_texels + t), 0);
  float sign = texelFetch(u_query_signs, texel_of(query), 0).r;
  vec4 best = vec4(kNone, -1.0, kNone, -1.0);
  int first = block * u_block;
  int last = min(first + u_block, u_train_count);
  for (int j = first; j < last; ++j) {
    if (u_laplacian != 0 && texelFetch(u_train_signs, texel_of(j), 0).r != sign) continue;
    float d2 = 0.0;
    for (int t = 0; t < u_texels; ++t) {
      vec4 d = q[t] - texelFetch(u_train, texel_of(j * u_texels + t), 0);
      d2 += dot(d, d);
    }
    if (d2 < best.x) {
      best = vec4(d2, float(j), best.xy);
    } else if (d2 < best.z) {
      best.zw = vec2(d2, float(j));
    }
  }
  o_best = best;
}
