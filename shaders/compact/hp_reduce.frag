#version 330 core
// compact/hp_reduce.frag — level k of the HistoPyramid from level k - 1: the
// sum of each 4x4 block. Even levels live in one texture and odd levels in
// another, each packed side by side, so a pass never reads what it writes.
//
// Input:    u_finer         the texture holding level k - 1 (RG32UI: the two
//                           classes of hp_base.frag, summed apart)
// Uniforms: u_finer_origin, u_finer_size  where level k - 1 is in it
//           u_origin        where level k starts in the texture written
// Output:   RG32UI counts
// Viewport: ceil(size of level k - 1 / 4), at u_origin.
#include "common/precision.glsl"

uniform usampler2D u_finer;
uniform ivec2 u_finer_origin;
uniform ivec2 u_finer_size;
uniform ivec2 u_origin;

layout(location = 0) out uvec2 o_count;

uvec2 count(ivec2 q) {
  if (any(greaterThanEqual(q, u_finer_size))) return uvec2(0u);
  return texelFetch(u_finer, u_finer_origin + q, 0).rg;
}

void main() {
  ivec2 q = 4 * (ivec2(gl_FragCoord.xy) - u_origin);
  uvec2 sum = uvec2(0u);
  for (int t = 0; t < 16; ++t) sum += count(q + ivec2(t & 3, t >> 2));
  o_count = sum;
}
