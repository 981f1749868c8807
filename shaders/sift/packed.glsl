// sift/packed.glsl — SIFT's packed images (src/sift/layout.hpp): the
// Gaussian and DoG atlases and the blur's scratch hold four horizontally
// adjacent pixels to an RGBA32F texel, pixels 4 t .. 4 t + 3 of a row in
// texel t of the image (every image starts at a texel: its x in the atlas
// is a multiple of 4). The components past a row's last pixel, in its last
// texel, repeat that pixel, so that a read clamped to the row's texels is
// also clamped to its pixels (packed_row_texel); every pass that writes a
// packed image keeps this (replicate_last).
//
// On llvmpipe a look-up costs about what it costs whether it returns one
// value or four, so the passes that walk the images along rows (the blurs,
// the differences, the downsampling) make four pixels a fragment from a
// quarter of the look-ups.

#ifndef SIFT_PACKED_GLSL
#define SIFT_PACKED_GLSL

// v, the pixels first .. first + 3 of a row whose last pixel is `last`,
// with the components past it set to it.
vec4 replicate_last(vec4 v, int first, int last) {
  int e = last - first;  // the last pixel's component; 3 or more before the row's last texel
  float l = e <= 0 ? v.x : (e == 1 ? v.y : (e == 2 ? v.z : v.w));
  return mix(v, vec4(l), greaterThan(ivec4(0, 1, 2, 3), ivec4(e)));
}

// Texel t of row y of an image at texel `origin` whose last texel is
// `last_texel`, as pixels clamped to the row: t < 0 gives pixel 0 four
// times, t > last_texel the last pixel four times.
vec4 packed_row_texel(sampler2D image, ivec2 origin, int t, int y, int last_texel) {
  vec4 v = texelFetch(image, origin + ivec2(clamp(t, 0, last_texel), y), 0);
  return t < 0 ? v.xxxx : (t > last_texel ? v.wwww : v);
}

// Pixel q of an image whose first pixel is at `origin` (pixels; origin.x a
// multiple of 4) in a packed atlas.
float packed_pixel(sampler2D atlas, ivec2 origin, ivec2 q) {
  ivec2 a = origin + q;
  return texelFetch(atlas, ivec2(a.x >> 2, a.y), 0)[a.x & 3];
}

// Pixels q.x - 1 .. q.x + 1 of row q.y of an image at `origin` (as for
// packed_pixel; all three inside the image): two look-ups rather than three.
vec3 packed_row3(sampler2D atlas, ivec2 origin, ivec2 q) {
  ivec2 a = origin + q;
  int k = a.x & 3;
  int t = (a.x >> 2) - (k == 0 ? 1 : 0);
  vec4 lo = texelFetch(atlas, ivec2(t, a.y), 0), hi = texelFetch(atlas, ivec2(t + 1, a.y), 0);
  return k == 0 ? vec3(lo.w, hi.xy) : (k == 1 ? lo.xyz : (k == 2 ? lo.yzw : vec3(lo.zw, hi.x)));
}
#endif
