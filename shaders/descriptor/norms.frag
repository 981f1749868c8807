#version 330 core
// descriptor/norms.frag — the reduction of L2 normalisation: per descriptor,
// the reciprocal of its norm, summed over its 4 x 4 tile (and the second
// tile with EXTENDED), for normalize.frag to scale by. One fragment per
// descriptor: the 16 (32) look-ups are made once, not by each of the
// descriptor's 16 output texels.
//
// Inputs:   u_first_half (and u_second_half with EXTENDED)  descriptor.frag output
// Uniform:  u_count
// Output:   R32F, texel k (a run of 1 per descriptor, common/blocks.glsl):
//           1 / |descriptor k|, or 0 for a zero descriptor (which stays zero).
// Viewport: ceil(count / 1024) rows of 1024.
#include "common/precision.glsl"

uniform sampler2D u_first_half;
#ifdef EXTENDED
uniform sampler2D u_second_half;
#endif
uniform int u_count;

layout(location = 0) out float o_scale;

#include "common/blocks.glsl"

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x;
  o_scale = 0.0;
  if (k >= u_count) return;
  float sum = 0.0;
  for (int r = 0; r < 16; ++r) {
    vec4 a = texelFetch(u_first_half, tile_texel(k, r, 4), 0);
    sum += dot(a, a);
#ifdef EXTENDED
    vec4 b = texelFetch(u_second_half, tile_texel(k, r, 4), 0);
    sum += dot(b, b);
#endif
  }
  o_scale = sum > 0.0 ? inversesqrt(sum) : 0.0;
}
