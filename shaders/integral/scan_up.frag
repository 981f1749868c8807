#version 330 core
// integral/scan_up.frag — one up-sweep level of a radix-RADIX Blelloch scan
// along one axis, every row (or column) at once. RADIX = 2 is the paper's
// scan (Terriberry et al. 2008, eqs. 3 and 5); a larger radix sums RADIX
// entries per output, so a scan needs log_RADIX(len) levels instead of
// log_2(len) (each level is a draw, and on llvmpipe a small draw costs about
// 0.1 ms whatever its size).
//
// Input:    u_source  level m-1 of the up-sweep (R32UI, or RGBA32UI with RADIX
//                     <= 4, whose x this reads; the R8 image with
//                     SOURCE_UNORM8, packed RGBA8 with SOURCE_PACKED8; with
//                     VECTOR RGBA32UI, all four), zero beyond its edge.
// Define:   RADIX     entries summed per output, >= 2 (2 if not defined).
//           VECTOR    an entry is a texel's four values, four columns
//                     scanned side by side (common/integral_source.glsl)
// Uniform:  u_axis    (1, 0) to sum along x, (0, 1) to sum along y.
// Output:   R32UI, level m: out(p) = sum of in(RADIX p + t axis), t < RADIX,
//           along the axis; unchanged index across it. Sums wrap mod 2^32.
//           With RADIX <= 4 (not VECTOR), RGBA32UI instead: the sum in x, as
//           above (the next level reads x), and in y, z, w the group's own
//           exclusive prefixes for its entries 1, 2, 3 (in(RADIX p), that
//           plus the next, ...), which the down-sweep then reads in one
//           look-up (scan_down.frag) instead of summing up to three entries
//           again. With VECTOR, RGBA32UI: the four sums.
// Viewport: ceil(len / RADIX) along the axis, the source's size across it.
#include "common/precision.glsl"
#ifndef RADIX
#define RADIX 2
#endif
#include "common/integral_source.glsl"

uniform ivec2 u_axis;

#if RADIX <= 4 && !defined(VECTOR)
#define LOCAL_PREFIXES
#endif
#if defined(LOCAL_PREFIXES) || defined(VECTOR)
layout(location = 0) out uvec4 o_sum;
#else
layout(location = 0) out uint o_sum;
#endif

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 first = p + p * u_axis * (RADIX - 1);  // RADIX p along the axis
  VALUE sum = VALUE(0u);
#if defined(LOCAL_PREFIXES) && defined(SOURCE_PACKED8) && RADIX == 4
  // A group is one texel of the packed image.
  uvec4 v = uvec4(texelFetch(u_source, p, 0) * 255.0 + 0.5);
  o_sum = uvec4(v.x + v.y + v.z + v.w, v.x, v.x + v.y, v.x + v.y + v.z);
#elif defined(LOCAL_PREFIXES)
  uvec4 prefixes = uvec4(0u);
  for (int t = 0; t < RADIX; ++t) {
    prefixes[t] = sum;  // entries before t; [0] becomes the sum below
    sum += source_at(first + t * u_axis);
  }
  o_sum = uvec4(sum, prefixes.yzw);
#else
  for (int t = 0; t < RADIX; ++t) sum += source_at(first + t * u_axis);
  o_sum = sum;
#endif
}
