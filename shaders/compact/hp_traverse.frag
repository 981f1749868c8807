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
//           u_masks         hp_base.frag's class masks of level 0's blocks,
//                           which say which atlas texels the pyramid counted
//                           (with a selection too)
//           u_atlas         candidate atlas (RGBA32F)
// Uniforms: u_top           index of the 1x1 top level
//           u_origins[], u_sizes[]  where each level is, and its size
//           u_list_width    entries per row of the list
//           u_first         the list entry that takes the pyramid's keypoint 0
//                           (entries before it are discarded)
//           u_rects[], u_rect_count   atlas rectangle (x, y, w, h) of each map,
//                           octave by octave, u_maps_per_octave of them each
// Output:   location 0: RGBA32F (x, y, size * laplacian, response), a copy of
//           the atlas texel; location 1: RGBA32F (octave, atlas x, atlas y, 0).
//           Entries before u_first or at or past u_first + the pyramid's
//           total are discarded (left as they were).
// Variant:  SIFT  SIFT's candidate atlas (sift/extrema.frag: x, y, the code
//           of D^'s sign, layer and offset_s, |D^|) into SIFT's point list
//           (docs/notes/sift.md): location 0 (x, y, sigma, D^) in octave
//           pixels, sigma = u_sigma 2^((layer + offset_s) / u_layers);
//           location 1 (k, layer, offset_s, 0), k the octave's position
//           (its map, one per octave).
// Viewport: the list texture.
#include "common/precision.glsl"

#include "common/constants.h"
#define MAX_RECTS 32

uniform usampler2D u_even;
uniform usampler2D u_odd;
uniform sampler2D u_atlas;
uniform int u_top;
uniform ivec2 u_origins[kMaxPyramidLevels];
uniform ivec2 u_sizes[kMaxPyramidLevels];
uniform int u_list_width;
uniform int u_first;
uniform ivec4 u_rects[MAX_RECTS];
uniform int u_rect_count;
uniform int u_maps_per_octave;
uniform usampler2D u_masks;
#ifdef SIFT
uniform float u_sigma;
uniform int u_layers;
#include "sift/code.glsl"
#endif

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
  // Level 0 counts 4x4 blocks of the atlas: the k-th of the class's texels
  // in its block, by the block's mask (hp_base.frag), which the counts came
  // from.
  uint masks = texelFetch(u_masks, pos, 0).r;
  uint mask = first_class ? (masks & 0xFFFFu) : (masks >> 16);
  ivec2 found = ivec2(-1);
  for (int d = 0; d < 16; ++d) {
    if (((mask >> uint(d)) & 1u) == 0u) continue;
    if (k == 0u) {
      found = 4 * pos + ivec2(d & 3, d >> 2);
      break;
    }
    k -= 1u;
  }
  if (found.x < 0) discard;  // cannot happen: the counts are the masks' bits

  int octave = -1;
  for (int i = 0; i < u_rect_count; ++i) {
    ivec4 r = u_rects[i];
    if (all(greaterThanEqual(found, r.xy)) && all(lessThan(found, r.xy + r.zw))) octave = i / u_maps_per_octave;
  }
#ifdef SIFT
  vec4 texel = texelFetch(u_atlas, found, 0);
  int layer;
  float offset_s;
  float sign_d = decode_extremum(texel.z, layer, offset_s);
  float sigma = u_sigma * exp2((float(layer) + offset_s) / float(u_layers));
  o_keypoint = vec4(texel.xy, sigma, sign_d * texel.w);
  o_where = vec4(float(octave), float(layer), offset_s, 0.0);
#else
  o_keypoint = texelFetch(u_atlas, found, 0);
  o_where = vec4(float(octave), vec2(found), 0.0);
#endif
}
