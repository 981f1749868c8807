#version 330 core
// sift/base.frag — the first image of octave 0 before its blur
// (docs/notes/sift.md, Scale space): the grey levels as value / 255, and with
// DOUBLE the image doubled: pixel 2i = I(i), pixel 2i + 1 = (I(i) + I(min(i +
// 1, W - 1))) / 2 along each axis (bilinear, the last column and row
// replicated), as cpu::sift::octave_base.
//
// Input:    u_image   the grey image (R8)
// Uniform:  u_origin  where the drawn region starts in the target
// Output:   R32F value in 0..1
// Viewport: the image's size (2W x 2H with DOUBLE), at u_origin.
#include "common/precision.glsl"

uniform sampler2D u_image;
uniform ivec2 u_origin;

layout(location = 0) out float o_value;

// Grey level / 255 (the R8 fetch rounded back to its integer, so that the
// division is the CPU reference's whatever the driver's unorm conversion).
float grey(ivec2 q) { return round(texelFetch(u_image, q, 0).r * 255.0) / 255.0; }

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
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
  o_value = top;
#else
  o_value = grey(p);
#endif
}
