#version 330 core
// descriptor/normalize.frag — L2 normalisation of each descriptor: every texel
// of a keypoint's 4 x 4 tile (and of the second tile with EXTENDED) scaled by
// the reciprocal of the whole descriptor's norm (norms.frag), and written as
// a run of 16 texels, sub-regions row by row (common/blocks.glsl), the layout
// readers expect.
//
// Inputs:   u_first_half (and u_second_half with EXTENDED)  descriptor.frag output
//           u_scales    norms.frag output
// Uniform:  u_count
// Output:   blocks of 16 texels per keypoint, normalised (a zero descriptor
//           stays zero).
// Viewport: ceil(count * 16 / 1024) rows of 1024.
#include "common/precision.glsl"

uniform sampler2D u_first_half;
#ifdef EXTENDED
uniform sampler2D u_second_half;
#endif
uniform sampler2D u_scales;
uniform int u_count;

layout(location = 0) out vec4 o_first;
#ifdef EXTENDED
layout(location = 1) out vec4 o_second;
#endif

#include "common/blocks.glsl"

void main() {
  ivec2 kr = block_of(ivec2(gl_FragCoord.xy), 16);
  o_first = vec4(0.0);
#ifdef EXTENDED
  o_second = vec4(0.0);
#endif
  if (kr.x >= u_count) return;
  float scale = texelFetch(u_scales, texel_of(kr.x), 0).r;
  ivec2 own = tile_texel(kr.x, kr.y, 4);
  o_first = texelFetch(u_first_half, own, 0) * scale;
#ifdef EXTENDED
  o_second = texelFetch(u_second_half, own, 0) * scale;
#endif
}
