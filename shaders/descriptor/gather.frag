#version 330 core
// descriptor/gather.frag — the descriptors of the kept keypoints, strongest
// first, in the layout the matcher reads (matcher/two_nearest.frag): keypoint
// k's values 4t .. 4t+3 in texel t of its block of u_texels texels. Copied on
// the GPU from the normalised descriptors (list order), so descriptors stay
// on the GPU between detection and matching.
//
// Inputs:   u_first_half (and u_second_half with EXTENDED)  normalize.frag
//           output, 16-texel blocks by descriptor entry (list order, then
//           second orientations)
//           u_order   descriptor entry (r) and list entry (g) of the k-th kept
//                     keypoint (RG32F, 1 texel each; they differ for second
//                     orientations)
// Uniforms: u_count (kept keypoints), u_texels (16, or 32 with EXTENDED)
// Output:   RGBA32F, u_texels-texel blocks
// Viewport: ceil(count * texels / 1024) rows of 1024.
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_first_half;
#ifdef EXTENDED
uniform sampler2D u_second_half;
#endif
uniform sampler2D u_order;
uniform int u_count;
uniform int u_texels;

layout(location = 0) out vec4 o_values;

void main() {
  ivec2 kt = block_of(ivec2(gl_FragCoord.xy), u_texels);
  o_values = vec4(0.0);
  if (kt.x >= u_count) return;
  int source = int(texelFetch(u_order, texel_of(kt.x), 0).r);
#ifdef EXTENDED
  // Sub-region r's 8 values: (first half, second half) of texel r.
  int r = kt.y / 2;
  o_values = (kt.y % 2 == 0) ? texelFetch(u_first_half, texel_of(source * 16 + r), 0)
                             : texelFetch(u_second_half, texel_of(source * 16 + r), 0);
#else
  o_values = texelFetch(u_first_half, texel_of(source * 16 + kt.y), 0);
#endif
}
