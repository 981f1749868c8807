// common/integral_fetch.glsl — the integral image's values, clamped into it.
//
// The stage's result packs four columns to a RGBA32UI texel (integral.hpp):
// texel (j, y) holds S(4j .. 4j + 3, y). With LINEAR_FETCH u_integral is its
// buffer copy (common/linear_fetch.glsl) read as R32UI, rows of
// 4 ceil((W + 1) / 4) values, or with INTEGRAL_TEXELS as RGBA32UI, rows of
// ceil((W + 1) / 4) texels (IntegralStage::linear_texels); otherwise the
// 2-D texture itself.
//
// Declares u_integral, u_integral_size = (W + 1, H + 1), and
//   without INTEGRAL_TEXELS:
//     uint integral_at(int x, int y)      S at (x, y) clamped into 0 .. W, 0 .. H
//   with INTEGRAL_TEXELS (the Hessian's passes, four columns at a time):
//     uvec4 integral_texel(int j, int y)  texel j of row y, both clamped
//     uvec4 integral_run(int x, int y)    S(x .. x + 3, y), row clamped, from
//                                         two texels; exact for the columns
//                                         in 0 .. W, the others unspecified

uniform USAMPLER u_integral;
uniform ivec2 u_integral_size;

#ifdef INTEGRAL_TEXELS
int integral_texels_per_row() { return (u_integral_size.x + 3) >> 2; }

uvec4 integral_texel(int j, int y) {
  int width = integral_texels_per_row();
  ivec2 q = clamp(ivec2(j, y), ivec2(0), ivec2(width, u_integral_size.y) - 1);
#ifdef LINEAR_FETCH
  return texelFetch(u_integral, q.y * width + q.x);
#else
  return texelFetch(u_integral, q, 0);
#endif
}

// Values d .. d + 3 of the eight in texels a, b (d in 0 .. 3).
uvec4 four_from(uvec4 a, uvec4 b, int d) {
  return d == 0 ? a : d == 1 ? uvec4(a.yzw, b.x) : d == 2 ? uvec4(a.zw, b.xy) : uvec4(a.w, b.xyz);
}

uvec4 integral_run(int x, int y) {
  return four_from(integral_texel(x >> 2, y), integral_texel((x >> 2) + 1, y), x & 3);
}
#else
uint integral_at(int x, int y) {
  ivec2 q = clamp(ivec2(x, y), ivec2(0), u_integral_size - 1);
#ifdef LINEAR_FETCH
  return texelFetch(u_integral, q.y * ((u_integral_size.x + 3) & ~3) + q.x).r;
#else
  return texelFetch(u_integral, ivec2(q.x >> 2, q.y), 0)[q.x & 3];
#endif
}
#endif
