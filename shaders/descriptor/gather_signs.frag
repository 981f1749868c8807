#version 330 core
// descriptor/gather_signs.frag — the Laplacian sign of each kept keypoint,
// strongest first, for the matcher's sign filter.
//
// Inputs:   u_list   point list (RGBA32F: x, y, size * laplacian, response)
//           u_order  list entry of the k-th kept keypoint (RG32F: g; gather.frag)
// Uniform:  u_count
// Output:   R32F +1 or -1, one texel per keypoint
// Viewport: ceil(count / 1024) rows of 1024.
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_list;
uniform sampler2D u_order;
uniform int u_count;

layout(location = 0) out float o_sign;

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x;
  o_sign = 0.0;
  if (k >= u_count) return;
  int source = int(texelFetch(u_order, texel_of(k), 0).g);
  o_sign = texelFetch(u_list, texel_of(source), 0).z > 0.0 ? 1.0 : -1.0;
}
