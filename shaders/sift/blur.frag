#version 330 core
// sift/blur.frag — one axis of a separable Gaussian blur (docs/notes/sift.md,
// Scale space): out(p) = sum over k = -RADIUS .. RADIUS of w_k source(p + k
// AXIS), coordinates clamped to the image (edge replicated), summed from k =
// -RADIUS up as cpu::sift::blur sums, so that the images are the CPU
// reference's to the rounding of each multiply-add.
//
// Rows (ROWS) go into the scratch, four pixels to an RGBA32F texel: one
// fragment makes four outputs from the 2 RADIUS + 4 pixels they need
// instead of 4 (2 RADIUS + 1). Columns read the scratch back one component
// at a time, with LINEAR_FETCH from its buffer-texture copy. On llvmpipe, for
// graf1 (800 x 640, doubled) the rows took 110 ms (GL timer) packed against
// 330 ms a pixel per fragment, the columns 250 ms from the buffer copy
// against 400 ms from the 2-D scratch; the whole detection 1.3 s of CPU
// time against 1.9 s before either.
//
// The weights are uniforms, four float bit patterns to an ivec4 (the pass
// runner sets no float arrays), one program per radius and axis: on llvmpipe
// the whole scale space of graf1 took 1.6 s of CPU time so, 2.4 s with the
// weights fetched from a small R32F texture instead. (Compiled-in constants
// would need defines longer than a GL label holds.)
//
// Input:    u_source       rows: R32F, an atlas; columns: the scratch (RGBA32F,
//                          or with LINEAR_FETCH its buffer copy, row by row)
// Uniforms: u_source_rect  x, y, width, height of the image in it (columns:
//                          x = the scratch's width in texels, y = 0)
//           u_origin       where the drawn region starts in the target
//           u_weights[]    the 2 RADIUS + 1 weights (cpu::sift::gaussian_kernel)
// Defines:  ROWS           the rows pass (else the columns pass)
//           RADIUS         r
// Output:   rows: RGBA32F, pixels 4 x .. 4 x + 3 of the row; columns: R32F
// Viewport: rows: ceil(width / 4) x height at the scratch's origin; columns:
//           the image's size, at u_origin.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"

#ifdef ROWS
uniform sampler2D u_source;
#else
uniform SAMPLER u_source;
#endif
uniform ivec4 u_source_rect;
uniform ivec2 u_origin;
uniform ivec4 u_weights[(2 * RADIUS + 1 + 3) / 4];

float weight(int i) { return intBitsToFloat(u_weights[i >> 2][i & 3]); }

#ifdef ROWS
layout(location = 0) out vec4 o_value;
#else
layout(location = 0) out float o_value;
#endif

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  ivec2 last = u_source_rect.zw - 1;
#ifdef ROWS
  int x0 = 4 * p.x - RADIUS;
  float v[2 * RADIUS + 4];
  for (int t = 0; t < 2 * RADIUS + 4; ++t)
    v[t] = texelFetch(u_source, u_source_rect.xy + ivec2(clamp(x0 + t, 0, last.x), p.y), 0).r;
  vec4 sum = vec4(0.0);
  for (int k = 0; k <= 2 * RADIUS; ++k) sum += weight(k) * vec4(v[k], v[k + 1], v[k + 2], v[k + 3]);
  o_value = sum;
#else
  int c = p.x & 3;
  float sum = 0.0;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int y = clamp(p.y + k, 0, last.y);
    sum += weight(k + RADIUS) * FETCH(u_source, ivec2(p.x >> 2, y), u_source_rect.x)[c];
  }
  o_value = sum;
#endif
}
