#version 330 core
// sift/base.frag — the first image of octave 0 before its blur
// (docs/notes/sift.md, Scale space): the grey levels as value / 255, and with
// DOUBLE the image doubled: pixel 2i = I(i), pixel 2i + 1 = (I(i) + I(min(i +
// 1, W - 1))) / 2 along each axis (bilinear, the last column and row
// replicated), as cpu::sift::octave_base.
//
// Written packed (sift/packed.glsl), four pixels a fragment.
//
// Input:    u_image   the grey image (R8)
// Uniforms: u_origin  where the drawn region starts in the target (texels)
//           u_size    the image's size in pixels (2W x 2H with DOUBLE)
// Output:   RGBA32F, values in 0..1: pixels 4 x .. 4 x + 3 of the row
// Viewport: ceil(u_size.x / 4) x u_size.y, at u_origin.
#include "common/precision.glsl"
#include "sift/packed.glsl"

uniform sampler2D u_image;
uniform ivec2 u_origin;
uniform ivec2 u_size;

layout(location = 0) out vec4 o_value;

// Grey level / 255 (the R8 fetch rounded back to its integer, so that the
// division is the CPU reference's whatever the driver's unorm conversion).
float grey(ivec2 q) { return round(texelFetch(u_image, q, 0).r * 255.0) / 255.0; }

// Pixel p of the image.
float base(ivec2 p) {
#ifdef DOUBLE
  ivec2 last = textureSize(u_image, 0) - 1;
  ivec2 i = p / 2;
  ivec2 j = min(i + 1, last);
  bool odd_x = (p.x & 1) != 0, odd_y = (p.y & 1) != 0;
  // Along x in each of the (one or two) rows, then along y.
  float top = odd_x ? (grey(i) + grey(ivec2(j.x, i.y))) * 0.5 : grey(i);
  if (odd_y) {
    float bottom = odd_x ? (grey(ivec2(i.x, j.y)) + grey(j)) * 0.5 : grey(ivec2(i.x, j.y));
    top = (top + bottom) * 0.5;
  }
  return top;
#else
  return grey(p);
#endif
}

void main() {
  ivec2 t = ivec2(gl_FragCoord.xy) - u_origin;
  int last = u_size.x - 1;
  vec4 v;
  // Pixels past the row's last are that pixel (sift/packed.glsl).
  for (int c = 0; c < 4; ++c) v[c] = base(ivec2(min(4 * t.x + c, last), t.y));
  o_value = v;
}
