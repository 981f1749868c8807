#version 330 core
// matcher/distances.frag — Chariot & Keriven 2008's distance texture T_dist:
// the squared distance of every (query, train) pair of a query tile. The
// plain matcher (oracle and baseline for the fused two_nearest.frag).
//
// Inputs:   u_query, u_train  descriptors (RGBA32F, 1024 wide, descriptor i's
//                             texel t at linear index i * u_texels + t)
//           u_query_signs, u_train_signs  as two_nearest.frag
// Uniforms: u_texels, u_query_first, u_laplacian
// Output:   R32F squared distance; 1e30 for pairs of opposite Laplacian sign
//           when u_laplacian is set
// Viewport: train count x queries in the tile; texel (j, r) is query
//           u_query_first + r against train j.
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_query;
uniform sampler2D u_train;
uniform sampler2D u_query_signs;
uniform sampler2D u_train_signs;
uniform int u_texels;
uniform int u_query_first;
uniform int u_laplacian;

layout(location = 0) out float o_distance;

void main() {
  int j = int(gl_FragCoord.x);
  int query = u_query_first + int(gl_FragCoord.y);
  if (u_laplacian != 0 &&
      texelFetch(u_train_signs, texel_of(j), 0).r != texelFetch(u_query_signs, texel_of(query), 0).r) {
    o_distance = 1e30;
    return;
  }
  float d2 = 0.0;
  for (int t = 0; t < u_texels; ++t) {
    vec4 d = texelFetch(u_query, texel_of(query * u_texels + t), 0) - texelFetch(u_train, texel_of(j * u_texels + t), 0);
    d2 += dot(d, d);
  }
  o_distance = d2;
}
