#version 330 core
// sift/blur.frag — one axis of a separable Gaussian blur (docs/notes/sift.md,
// Scale space): out(p) = sum over k = -RADIUS .. RADIUS of w_k source(p + k
// AXIS), coordinates clamped to the image (edge replicated), summed from k =
// -RADIUS up as cpu::sift::blur sums, so that the images are the CPU
// reference's to the rounding of each multiply-add.
//
// Rows (ROWS) go into the scratch, four pixels to an RGBA32F texel: one
// fragment makes four outputs from the 2 RADIUS + 4 pixels they need
// instead of 4 (2 RADIUS + 1). Columns read the scratch back, with
// LINEAR_FETCH from its buffer-texture copy. On llvmpipe, for
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
// The Gaussian atlas is packed too (sift/packed.glsl): the rows read a
// texel for four pixels, 2 ceil(RADIUS / 4) + 1 look-ups for four outputs
// instead of 2 RADIUS + 4, and the columns make four pixels a fragment from
// 2 RADIUS + 1 look-ups of four values each. On llvmpipe a columns pass of
// radius 13 over 1280 x 960 pixels took 6.9 ms so against 23.8 ms a pixel
// per fragment (medians of 15 draws, the same run); in `glsurf bench sift`
// on graf1 resampled to 640 x 480 (two interleaved rounds) the rows took 58
// against 179 ms a frame, the columns 61 against 268 ms, the DoG 29 against
// 102 ms, and the frame 0.55 times as long as with R32F atlases (0.51 at
// 1920 x 1080), the images unchanged bit for bit.
//
// Input:    u_source       rows: a packed atlas (RGBA32F); columns: the
//                          scratch (RGBA32F, or with LINEAR_FETCH its buffer
//                          copy, row by row)
// Uniforms: u_source_rect  x, y (texels), width, height (pixels) of the image
//                          in it (columns: x = the scratch's width in texels,
//                          y = 0)
//           u_origin       where the drawn region starts in the target (texels)
//           u_weights[]    the 2 RADIUS + 1 weights (cpu::sift::gaussian_kernel)
// Defines:  ROWS           the rows pass (else the columns pass)
//           RADIUS         r
// Output:   RGBA32F, pixels 4 x .. 4 x + 3 of the row (packed: rows into the
//           scratch, columns into the Gaussian atlas)
// Viewport: ceil(width / 4) x height, at u_origin.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"
#include "sift/packed.glsl"

#ifdef ROWS
uniform sampler2D u_source;
#else
uniform SAMPLER u_source;
#endif
uniform ivec4 u_source_rect;
uniform ivec2 u_origin;
uniform ivec4 u_weights[(2 * RADIUS + 1 + 3) / 4];

float weight(int i) { return intBitsToFloat(u_weights[i >> 2][i & 3]); }

layout(location = 0) out vec4 o_value;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  ivec2 last = u_source_rect.zw - 1;
#ifdef ROWS
  // Texels p.x - A .. p.x + A hold pixels 4 p.x - 4 A .. 4 p.x + 4 A + 3,
  // which cover 4 p.x - RADIUS .. 4 p.x + 3 + RADIUS.
  const int A = (RADIUS + 3) / 4;
  float v[4 * (2 * A + 1)];
  for (int j = 0; j <= 2 * A; ++j) {
    vec4 t = packed_row_texel(u_source, u_source_rect.xy, p.x - A + j, p.y, last.x >> 2);
    for (int c = 0; c < 4; ++c) v[4 * j + c] = t[c];
  }
  // Pixel 4 p.x - RADIUS + k is v[4 A - RADIUS + k].
  const int first = 4 * A - RADIUS;
  vec4 sum = vec4(0.0);
  for (int k = 0; k <= 2 * RADIUS; ++k)
    sum += weight(k) * vec4(v[first + k], v[first + k + 1], v[first + k + 2], v[first + k + 3]);
  o_value = replicate_last(sum, 4 * p.x, last.x);
#else
  vec4 sum = vec4(0.0);
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int y = clamp(p.y + k, 0, last.y);
    sum += weight(k + RADIUS) * FETCH(u_source, ivec2(p.x, y), u_source_rect.x);
  }
  o_value = sum;
#endif
}
