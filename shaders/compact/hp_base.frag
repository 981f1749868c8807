#version 330 core
// compact/hp_base.frag — level 0 of the HistoPyramid (Ziegler et al. 2006):
// how many keypoints each 4x4 block of the candidate atlas holds (4x4 rather
// than 2x2: half the levels, and on llvmpipe each level is a draw with a
// fixed cost).
//
// Input:    u_atlas   candidate atlas (RGBA32F; alpha = response > 0 where a
//                     keypoint is, 0 elsewhere)
//           u_selection  (variants SELECT, SELECT_ABOVE, SELECT_AT) selection
//                     state of select/choose.frag (RGBA32UI 1x1): only
//                     responses whose bits are >= (> or ==) its x count, i.e.
//                     the N strongest and exact ties with the N-th (the
//                     strictly stronger ones, the ties); common/keep.glsl
// Uniforms: u_origin  where level 0 starts in its texture
// Output:   R32UI count in 0..16
// Viewport: ceil(atlas width / 4) x ceil(atlas height / 4), at u_origin.
#include "common/precision.glsl"

uniform sampler2D u_atlas;
uniform ivec2 u_origin;
#include "common/keep.glsl"

layout(location = 0) out uint o_count;

uint is_keypoint(ivec2 q) {
  if (any(greaterThanEqual(q, textureSize(u_atlas, 0)))) return 0u;
  return keep(texelFetch(u_atlas, q, 0).a) ? 1u : 0u;
}

void main() {
  ivec2 q = 4 * (ivec2(gl_FragCoord.xy) - u_origin);
  uint count = 0u;
  for (int t = 0; t < 16; ++t) count += is_keypoint(q + ivec2(t & 3, t >> 2));
  o_count = count;
}
