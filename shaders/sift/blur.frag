#version 330 core
// sift/blur.frag — one axis of a separable Gaussian blur (docs/notes/sift.md,
// Scale space): out(p) = sum over k = -RADIUS .. RADIUS of w_k source(p + k
// AXIS), coordinates clamped to the source rectangle (edge replicated),
// summed from k = -RADIUS up as cpu::sift::blur sums.
//
// The weights are uniforms, four float bit patterns to an ivec4 (the pass
// runner sets no float arrays), one program per radius and axis: on llvmpipe
// the whole scale space of graf1 (800 x 640, doubled) took 1.6 s of CPU time
// so, 2.4 s with the weights fetched from a small R32F texture instead.
// (Compiled-in constants would need defines longer than a GL label holds.)
//
// Input:    u_source       R32F (an atlas, or the scratch)
// Uniforms: u_source_rect  x, y, width, height of the source image in it
//           u_origin       where the drawn region starts in the target
//           u_weights[]    the 2 RADIUS + 1 weights (cpu::sift::gaussian_kernel)
// Defines:  AXIS           ivec2(1, 0) (rows) or ivec2(0, 1) (columns)
//           RADIUS         r
// Output:   R32F
// Viewport: the source image's size, at u_origin.
#include "common/precision.glsl"

uniform sampler2D u_source;
uniform ivec4 u_source_rect;
uniform ivec2 u_origin;
uniform ivec4 u_weights[(2 * RADIUS + 1 + 3) / 4];

float weight(int i) { return intBitsToFloat(u_weights[i >> 2][i & 3]); }

layout(location = 0) out float o_value;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  ivec2 last = u_source_rect.zw - 1;
  float sum = 0.0;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    ivec2 q = clamp(p + k * AXIS, ivec2(0), last);
    sum += weight(k + RADIUS) * texelFetch(u_source, u_source_rect.xy + q, 0).r;
  }
  o_value = sum;
}
