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
// With RADIX <= 4 (but the top level, and not VECTOR) the sum of the
// entries before i within its group comes in one look-up of U_{m+1}, whose
// texel i / RADIX holds the group's own prefixes (scan_up.frag), instead of
// summing up to RADIX - 1 entries of U_m: the final level of the scan along
// the rows makes 2 look-ups a texel instead of 4.
//
// Input:    u_partial D_{m+1} (R32UI; RGBA32UI with VECTOR), len_{m+1} + 1
//                     along the axis. Absent in the TOP_LEVEL variant, where
//                     D_{m+1} = 0 (len_m <= RADIX).
//           u_source  U_m, the up-sweep level m (R32UI, or RGBA32UI with RADIX
//                     <= 4, whose x this reads; the R8 image with
//                     SOURCE_UNORM8 when m = 0, or packed with
//                     SOURCE_PACKED8; RGBA32UI with VECTOR); with
//                     local prefixes only at the top level.
//           u_local   with local prefixes but the top level: U_{m+1}
//                     (RGBA32UI, scan_up.frag).
// Define:   RADIX     as the up-sweep's (2 if not defined).
//           VECTOR    entries are texels of four columns (integral_source.glsl)
//           PACKED    the final level along the rows, written four entries
//                     to a texel (integral.hpp): texel j holds D_0(4j .. 4j+3),
//                     entries past len_0 repeating D_0(len_0), the total.
// Uniforms: u_axis    (1, 0) for rows, (0, 1) for columns.
//           u_length  with PACKED: len_0.
// Output:   R32UI D_m(i) = sum of U_m(0 .. i-1): one more entry along the axis
//           than U_m, so the last entry holds the whole row (column) total.
//           RGBA32UI with VECTOR or PACKED.
// Viewport: len_m + 1 along the axis (with PACKED, ceil((len_0 + 1) / 4)),
//           the source's size across it.
#include "common/precision.glsl"
#ifndef RADIX
#define RADIX 2
#endif
#include "common/integral_source.glsl"

#ifndef TOP_LEVEL
#ifdef VECTOR
uniform usampler2D u_partial;
#define PARTIAL(q) texelFetch(u_partial, q, 0)
#else
uniform usampler2D u_partial;
#define PARTIAL(q) texelFetch(u_partial, q, 0).r
#endif
#if RADIX <= 4 && !defined(VECTOR)
#define LOCAL_PREFIXES
uniform usampler2D u_local;
#endif
#endif
uniform ivec2 u_axis;
#ifdef PACKED
uniform int u_length;
#endif

#if defined(VECTOR) || defined(PACKED)
layout(location = 0) out uvec4 o_prefix;
#else
layout(location = 0) out uint o_prefix;
#endif

// D_m at p.
VALUE prefix_at(ivec2 p) {
  int along = p.x * u_axis.x + p.y * u_axis.y;  // index along the axis
#ifdef LOCAL_PREFIXES
  int group = along / RADIX;
  int within = along - group * RADIX;
  ivec2 q = p + (group - along) * u_axis;  // p's group in U_{m+1} and D_{m+1}
  uint prefix = PARTIAL(q);
  // The extra entry i = len_m may lie one group past U_{m+1}'s last; it is
  // first in its group (within = 0) and needs no local prefix.
  uvec4 local = texelFetch(u_local, min(q, textureSize(u_local, 0) - 1), 0);
  return prefix + (within == 1 ? local.y : within == 2 ? local.z : within == 3 ? local.w : 0u);
#else
#ifdef TOP_LEVEL
  const int kMost = RADIX;  // entries before p, all in the one group
  int within = along;
  VALUE prefix = VALUE(0u);
#else
  const int kMost = RADIX - 1;
  int group = along / RADIX;
  int within = along - group * RADIX;  // entries of p's group before p
  VALUE prefix = PARTIAL(p + (group - along) * u_axis);
#endif
  ivec2 first = p - within * u_axis;
  for (int t = 0; t < kMost; ++t) {
    if (t < within) prefix += source_at(first + t * u_axis);
  }
  return prefix;
#endif
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
#if defined(PACKED) && defined(LOCAL_PREFIXES) && RADIX == 4
  // Texel j's entries 4j .. 4j+3 are group j: its prefix, plus its own
  // prefixes (none past U_1's last group, whose entries all lie past the
  // row's end and hold its total).
  uint prefix = PARTIAL(p);
  uvec4 local = p.x < textureSize(u_local, 0).x ? texelFetch(u_local, p, 0) : uvec4(0u);
  o_prefix = uvec4(prefix) + uvec4(0u, local.yzw);
#elif defined(PACKED)
  // Rows only (u_axis = (1, 0)).
  for (int t = 0; t < 4; ++t) o_prefix[t] = prefix_at(ivec2(min(4 * p.x + t, u_length), p.y));
#else
  o_prefix = prefix_at(p);
#endif
}
