#version 330 core
// orientation/quads.frag — the integral image regrouped so that one fetch gives
// the four values around a pixel corner: texel (x + 1, y + 1), for x in
// -1 .. W and y in -1 .. H, holds II at (x, y), (x + 1, y), (x, y + 1) and
// (x + 1, y + 1), each coordinate clamped into 0 .. W (0 .. H). Fetched at a
// corner clamped into -1 .. W, it gives exactly the clamped values the
// sub-pixel box means of common/haar.glsl need.
//
// Input:    u_integral  integral image (common/integral_fetch.glsl; with
//                       LINEAR_FETCH a buffer copy of it)
// Uniforms: u_integral_size  (W + 1, H + 1)
//           u_first_row  the quads' row that the target's row 0 holds (a
//                        band of rows: surf/integral.hpp, scratch_band_rows)
// Output:   RGBA32UI, (W + 2) x (H + 2), or a band of its rows
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"
#include "common/integral_fetch.glsl"

uniform int u_first_row;

layout(location = 0) out uvec4 o_quad;

void main() {
  ivec2 last = u_integral_size - 1;  // W, H
  ivec2 p = ivec2(gl_FragCoord.xy) + ivec2(0, u_first_row) - 1;
  ivec2 a = clamp(p, ivec2(0), last), b = clamp(p + 1, ivec2(0), last);
  o_quad = uvec4(integral_at(a.x, a.y), integral_at(b.x, a.y), integral_at(a.x, b.y), integral_at(b.x, b.y));
}
