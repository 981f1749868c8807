#version 330 core
// compact/hp_base.frag — level 0 of the HistoPyramid (Ziegler et al. 2006):
// how many keypoints each 4x4 block of the candidate atlas holds (4x4 rather
// than 2x2: half the levels, and on llvmpipe each level is a draw with a
// fixed cost), counted apart by class: those whose orientation samples need
// no clipping (common/orientation_inside.glsl), which the list takes first,
// and the others. Which texels of the block are of which class is written
// too, so that the traversal finds them without classifying them again (a
// second evaluation, in another program, could round differently at the
// margin and disagree with these counts).
//
// Input:    u_atlas   candidate atlas (RGBA32F: x, y, size * laplacian,
//                     response; response > 0 where a keypoint is, 0 elsewhere)
//           u_selection  (variants SELECT, SELECT_ABOVE, SELECT_AT) selection
//                     state of select/choose.frag (RGBA32UI 1x1): only
//                     responses whose bits are >= (> or ==) its x count, i.e.
//                     the N strongest and exact ties with the N-th (the
//                     strictly stronger ones, the ties); common/keep.glsl
// Uniforms: u_origin  where level 0 starts in its texture
//           u_image_size, u_orientation_reach  common/orientation_inside.glsl
//                     (not with SIFT)
// Variant:  SIFT      SIFT's candidate atlas (sift/extrema.frag: response
//                     |D^| in alpha): every candidate of the first class
// Output:   location 0: RG32UI (keypoints clear of the border, the others),
//           each 0..16; location 1: R32UI masks of the block's texels t = 4 j
//           + i (i, j in 0..3), bit t for the first class, bit 16 + t for the
//           second
// Viewport: ceil(atlas width / 4) x ceil(atlas height / 4), at u_origin.
#include "common/precision.glsl"

uniform sampler2D u_atlas;
uniform ivec2 u_origin;
#include "common/keep.glsl"
#ifndef SIFT
uniform ivec2 u_image_size;
uniform float u_orientation_reach;
#include "common/orientation_inside.glsl"
#endif

layout(location = 0) out uvec2 o_count;
layout(location = 1) out uint o_masks;

// (1, 0) for a keypoint clear of the border, (0, 1) for another, (0, 0) for
// none.
uvec2 class_of(ivec2 q) {
  if (any(greaterThanEqual(q, textureSize(u_atlas, 0)))) return uvec2(0u);
  vec4 texel = texelFetch(u_atlas, q, 0);
  if (!keep(texel.a)) return uvec2(0u);
#ifdef SIFT
  return uvec2(1u, 0u);
#else
  return orientation_inside(texel) ? uvec2(1u, 0u) : uvec2(0u, 1u);
#endif
}

void main() {
  ivec2 q = 4 * (ivec2(gl_FragCoord.xy) - u_origin);
  uvec2 count = uvec2(0u);
  uint masks = 0u;
  for (int t = 0; t < 16; ++t) {
    uvec2 c = class_of(q + ivec2(t & 3, t >> 2));
    count += c;
    masks |= (c.x << uint(t)) | (c.y << uint(16 + t));
  }
  o_count = count;
  o_masks = masks;
}
