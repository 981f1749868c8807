#version 330 core
// compact/hp_traverse.frag — the point list: list entry k walks down the
// HistoPyramid from its top, at each level choosing the child block whose
// running count passes k, until it reaches the k-th keypoint of the atlas in
// the pyramid's order (deterministic: the 4x4 children visited row by row).
// The pyramid counts two classes apart (hp_base.frag): the keypoints whose
// orientation samples need no clipping come first, entries 0 .. I - 1 (I the
// top's first count), then the others, each class in the pyramid's order.
//
// Inputs:   u_even, u_odd   the pyramid's even and odd levels (RG32UI)
//           u_atlas         candidate atlas (RGBA32F)
//           u_selection     (variants SELECT, SELECT_ABOVE, SELECT_AT) as in
//                           hp_base.frag: the same test (common/keep.glsl)
//                           decides which atlas texels the pyramid counted
// Uniforms: u_top           index of the 1x1 top level
//           u_origins[], u_sizes[]  where each level is, and its size
//           u_list_width    entries per row of the list
//           u_first         the list entry that takes the pyramid's keypoint 0
//                           (entries before it are discarded)
//           u_rects[], u_rect_count   atlas rectangle (x, y, w, h) of each map,
//                           octave by octave, u_maps_per_octave of them each
//           u_image_size, u_orientation_reach  common/orientation_inside.glsl,
//                           as for hp_base.frag
// Output:   location 0: RGBA32F (x, y, size * laplacian, response), a copy of
//           the atlas texel; location 1: RGBA32F (octave, atlas x, atlas y, 0).
//           Entries before u_first or at or past u_first + the pyramid's
//           total are discarded (left as they were).
// Viewport: the list texture.
#include "common/precision.glsl"

#define MAX_LEVELS 16
#define MAX_RECTS 32

uniform usampler2D u_even;
uniform usampler2D u_odd;
uniform sampler2D u_atlas;
uniform int u_top;
uniform ivec2 u_origins[MAX_LEVELS];
uniform ivec2 u_sizes[MAX_LEVELS];
uniform int u_list_width;
uniform int u_first;
uniform ivec4 u_rects[MAX_RECTS];
uniform int u_rect_count;
uniform int u_maps_per_octave;
uniform ivec2 u_image_size;
uniform float u_orientation_reach;
#include "common/keep.glsl"
#include "common/orientation_inside.glsl"

layout(location = 0) out vec4 o_keypoint;
layout(location = 1) out vec4 o_where;

// Both classes' counts of block q of `level`.
uvec2 counts(int level, ivec2 q) {
  if (any(greaterThanEqual(q, u_sizes[level]))) return uvec2(0u);
  ivec2 t = u_origins[level] + q;
  return (level & 1) == 0 ? texelFetch(u_even, t, 0).rg : texelFetch(u_odd, t, 0).rg;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int entry = p.y * u_list_width + p.x - u_first;
  if (entry < 0) discard;
  uint k = uint(entry);
  uvec2 total = counts(u_top, ivec2(0));
  if (k >= total.x + total.y) discard;
  // Entry k is the k-th keypoint of the first class, or the (k - I)-th of
  // the second.
  bool first_class = k < total.x;
  if (!first_class) k -= total.x;

  ivec2 pos = ivec2(0);
  for (int level = u_top; level >= 1; --level) {
    ivec2 base = 4 * pos;
    for (int d = 0; d < 16; ++d) {
      ivec2 q = base + ivec2(d & 3, d >> 2);
      uvec2 both = counts(level - 1, q);
      uint c = first_class ? both.x : both.y;
      if (k < c) {
        pos = q;
        break;
      }
      k -= c;
    }
  }
  // Level 0 counts 4x4 blocks of the atlas: find the k-th keypoint in its block.
  ivec2 atlas_size = textureSize(u_atlas, 0);
  ivec2 found = ivec2(-1);
  for (int d = 0; d < 16; ++d) {
    ivec2 q = 4 * pos + ivec2(d & 3, d >> 2);
    if (any(greaterThanEqual(q, atlas_size))) continue;
    vec4 texel = texelFetch(u_atlas, q, 0);
    if (!keep(texel.a) || orientation_inside(texel) != first_class) continue;
    if (k == 0u) {
      found = q;
      break;
    }
    k -= 1u;
  }
  if (found.x < 0) discard;  // cannot happen with a consistent pyramid

  int octave = -1;
  for (int i = 0; i < u_rect_count; ++i) {
    ivec4 r = u_rects[i];
    if (all(greaterThanEqual(found, r.xy)) && all(lessThan(found, r.xy + r.zw))) octave = i / u_maps_per_octave;
  }
  o_keypoint = texelFetch(u_atlas, found, 0);
  o_where = vec4(float(octave), vec2(found), 0.0);
}
