// common/integral_fetch.glsl — the integral image's values, clamped into it.
//
// The stage's result packs four columns to a RGBA32UI texel (integral.hpp):
// texel (j, y) holds S(4j .. 4j + 3, y). With LINEAR_FETCH u_integral is its
// buffer copy read as R32UI (common/linear_fetch.glsl), rows of
// 4 ceil((W + 1) / 4) values; otherwise the 2-D texture itself.
//
// Declares u_integral, u_integral_size = (W + 1, H + 1), and
// uint integral_at(int x, int y): S at (x, y) clamped into 0 .. W, 0 .. H.

uniform USAMPLER u_integral;
uniform ivec2 u_integral_size;

uint integral_at(int x, int y) {
  ivec2 q = clamp(ivec2(x, y), ivec2(0), u_integral_size - 1);
#ifdef LINEAR_FETCH
  return texelFetch(u_integral, q.y * ((u_integral_size.x + 3) & ~3) + q.x).r;
#else
  return texelFetch(u_integral, ivec2(q.x >> 2, q.y), 0)[q.x & 3];
#endif
}
