#version 330 core
// integral/scan_down.frag — one down-sweep level of a radix-RADIX Blelloch
// scan along one axis (Terriberry et al. 2008, eqs. 4 and 6, for RADIX = 2):
// the exclusive prefix sum ("prescan") of level m from that of level m+1.
//
//   D_m(i) = D_{m+1}(i / RADIX) + sum of U_m(j), RADIX (i / RADIX) <= j < i
//
// (i along the axis; integer division), i.e. the prefix of the group i falls
// in plus the entries before i within the group, at most RADIX - 1 of them.
// The top level (len_m <= RADIX) is one group: D_m(i) = sum of U_m(j), j < i,
// up to the total at i = len_m.
//
// With RADIX <= 4 (but the top level) the sum of the entries before i
// within its group comes in one look-up of U_{m+1}, whose texel i / RADIX
// holds the group's own prefixes (scan_up.frag), instead of summing up to
// RADIX - 1 entries of U_m: the final level, the size of the whole image,
// makes 2 look-ups a texel instead of 4.
//
// Input:    u_partial D_{m+1} (R32UI), len_{m+1} + 1 along the axis. Absent in
//                     the TOP_LEVEL variant, where D_{m+1} = 0 (len_m <= RADIX).
//           u_source  U_m, the up-sweep level m (R32UI, or RGBA32UI with RADIX
//                     <= 4, whose x this reads; the R8 image with
//                     SOURCE_UNORM8 when m = 0); with RADIX <= 4 only at the
//                     top level.
//           u_local   with RADIX <= 4 but the top level: U_{m+1} (RGBA32UI,
//                     scan_up.frag).
// Define:   RADIX     as the up-sweep's (2 if not defined).
// Uniform:  u_axis    (1, 0) for rows, (0, 1) for columns.
// Output:   R32UI D_m(i) = sum of U_m(0 .. i-1): one more entry along the axis
//           than U_m, so the last entry holds the whole row (column) total.
// Viewport: len_m + 1 along the axis, the source's size across it.
#include "common/precision.glsl"
#ifndef RADIX
#define RADIX 2
#endif
#include "common/integral_source.glsl"

#ifndef TOP_LEVEL
uniform usampler2D u_partial;
#if RADIX <= 4
#define LOCAL_PREFIXES
uniform usampler2D u_local;
#endif
#endif
uniform ivec2 u_axis;

layout(location = 0) out uint o_prefix;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int along = p.x * u_axis.x + p.y * u_axis.y;  // index along the axis
#ifdef LOCAL_PREFIXES
  int group = along / RADIX;
  int within = along - group * RADIX;
  ivec2 q = p + (group - along) * u_axis;  // p's group in U_{m+1} and D_{m+1}
  uint prefix = texelFetch(u_partial, q, 0).r;
  // The extra entry i = len_m may lie one group past U_{m+1}'s last; it is
  // first in its group (within = 0) and needs no local prefix.
  uvec4 local = texelFetch(u_local, min(q, textureSize(u_local, 0) - 1), 0);
  o_prefix = prefix + (within == 1 ? local.y : within == 2 ? local.z : within == 3 ? local.w : 0u);
#else
#ifdef TOP_LEVEL
  const int kMost = RADIX;  // entries before p, all in the one group
  int within = along;
  uint prefix = 0u;
#else
  const int kMost = RADIX - 1;
  int group = along / RADIX;
  int within = along - group * RADIX;  // entries of p's group before p
  uint prefix = texelFetch(u_partial, p + (group - along) * u_axis, 0).r;
#endif
  ivec2 first = p - within * u_axis;
  for (int t = 0; t < kMost; ++t) {
    if (t < within) prefix += source_at(first + t * u_axis);
  }
  o_prefix = prefix;
#endif
}
