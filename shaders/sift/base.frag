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

void main() {
  ivec2 t = ivec2(gl_FragCoord.xy) - u_origin;
  int last = u_size.x - 1;
#ifdef DOUBLE
  // Pixels 4 t.x .. 4 t.x + 3 of row t.y: columns i = 2 t.x, 2 t.x + 1 and
  // min(i + 1, W - 1) of rows t.y / 2 and (odd rows) min(t.y / 2 + 1, H - 1),
  // six look-ups for four pixels, each pixel the same sums as alone (llvmpipe
  // makes both sides of the branch: 16 look-ups when each pixel fetched its
  // own; graf1 resampled to 1920 x 1080: 35-38 against 107-110 ms, medians
  // of 3 frames, two interleaved pairs in one process).
  ivec2 image_last = textureSize(u_image, 0) - 1;
  int x0 = 2 * t.x, y0 = t.y / 2, y1 = min(y0 + 1, image_last.y);
  int x1 = min(x0 + 1, image_last.x), x2 = min(x0 + 2, image_last.x);
  vec3 top = vec3(grey(ivec2(x0, y0)), grey(ivec2(x1, y0)), grey(ivec2(x2, y0)));
  // Along x in each of the (one or two) rows, then along y.
  vec4 v = vec4(top.x, (top.x + top.y) * 0.5, top.y, (top.y + top.z) * 0.5);
  if ((t.y & 1) != 0) {
    vec3 bottom = vec3(grey(ivec2(x0, y1)), grey(ivec2(x1, y1)), grey(ivec2(x2, y1)));
    v = (v + vec4(bottom.x, (bottom.x + bottom.y) * 0.5, bottom.y, (bottom.y + bottom.z) * 0.5)) * 0.5;
  }
  // Pixels past the row's last are that pixel (sift/packed.glsl).
  o_value = replicate_last(v, 4 * t.x, last);
#else
  vec4 v;
  for (int c = 0; c < 4; ++c) v[c] = grey(ivec2(min(4 * t.x + c, last), t.y));
  o_value = v;
#endif
}
