#version 330 core
// describe/quads.frag — the integral image regrouped so that one fetch gives
// the four values around a pixel corner: texel (x + 1, y + 1), for x in
// -1 .. W and y in -1 .. H, holds II at (x, y), (x + 1, y), (x, y + 1) and
// (x + 1, y + 1), each coordinate clamped into 0 .. W (0 .. H). Fetched at a
// corner clamped into -1 .. W, it gives exactly the clamped values the
// sub-pixel box means of common/haar.glsl need.
//
// Input:    u_integral  integral image (R32UI, (W + 1) x (H + 1); with
//                       LINEAR_FETCH a buffer copy of it, common/linear_fetch.glsl)
// Uniform:  u_integral_size  (W + 1, H + 1)
// Output:   RGBA32UI, (W + 2) x (H + 2)
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"

uniform USAMPLER u_integral;
uniform ivec2 u_integral_size;

layout(location = 0) out uvec4 o_quad;

void main() {
  ivec2 last = u_integral_size - 1;  // W, H
  ivec2 p = ivec2(gl_FragCoord.xy) - 1;
  ivec2 a = clamp(p, ivec2(0), last), b = clamp(p + 1, ivec2(0), last);
  int width = u_integral_size.x;
  o_quad = uvec4(FETCH(u_integral, a, width).r, FETCH(u_integral, ivec2(b.x, a.y), width).r,
                 FETCH(u_integral, ivec2(a.x, b.y), width).r, FETCH(u_integral, b, width).r);
}
