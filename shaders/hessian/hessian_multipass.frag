#version 330 core
// hessian/hessian_multipass.frag — second pass of the multi-pass box filters:
// det(H) and the Laplacian's signs of up to four layers from the cross strip
// (strips_cross.frag) and the integral image. Dxy takes 4 strip look-ups per
// filter (Q(X), Q(X+1) below are the same for all four layers); Dxx and Dyy
// take 8 integral look-ups each, two per lobe strip R or C below, which this
// pass forms itself (on llvmpipe, passes and buffer copies of their own for
// them cost more than these look-ups). Same filters and the same integer lobe
// sums as hessian_single.frag, so the same numbers.
//
// With c = L / 2 and l = L / 3, at sample (X, Y) = (j, i) * step:
//   Dxx sum = -R(X-c) + 3 R(X-c+l) - 3 R(X-c+2l) + R(X+c+1)   R(x) = S(x, Y+l) - S(x, Y-l+1)
//   Dyy sum = -C(Y-c) + 3 C(Y-c+l) - 3 C(Y-c+2l) + C(Y+c+1)   C(y) = S(X+l, y) - S(X-l+1, y)
//   Dxy sum = Q(X) - Q(X-l) - Q(X+l+1) + Q(X+1)                Q = cross strip
// (R sums rows [Y-l+1, Y+l) of the columns < x, C columns [X-l+1, X+l) of
// the rows < y, so that each lobe of the +1 -2 +1 pattern is one strip
// difference), then each divided by its lobe area; det = Dxx Dyy - w(l)
// Dxy^2 (common/hessian.glsl), trace = Dxx + Dyy, of which only the sign is
// kept (bit k set where layer k's trace is negative: the Laplacian -1).
//
// With FIRST_LAYER = 1 or 2 (the first group of octaves after the first),
// layers k < FIRST_LAYER are not computed but copied: filter_size(o, k) =
// filter_size(o - 1, 2k + 1) (surf/keypoint.hpp) and sample (j, i) of octave
// o is sample (2j, 2i) of octave o - 1, so layer k here is layer 2k + 1 of
// the octave before, at every other sample: the same integer sums, the same
// numbers. The layers copied from, 1 and 3, are in that octave's first group.
//
// Inputs:   u_cross  (RGBA32UI, (W+1) x a band of the grid's rows, sample
//           row i in its row i - u_cross_first_row); u_integral
//           (common/integral_fetch.glsl); 2-D, or with LINEAR_FETCH buffer
//           textures holding the same rows (common/linear_fetch.glsl)
//           u_previous_det, u_previous_signs  with FIRST_LAYER > 0: the first
//           group of the octave before (RGBA32F, R8UI)
// Uniforms: u_step, u_filters, u_image_size, u_integral_size, u_cross_first_row
// Defines:  FIRST_LAYER (default 0; a define so that the loop unrolls)
// Output:   location 0: det per layer (RGBA32F), location 1: the signs (R8UI,
//           bit k for layer k); det 0 and bit clear where the filter does not
//           lie inside the image.
// Viewport: the octave's sample grid, or the band of its rows that u_cross holds.
#include "common/precision.glsl"

#include "common/linear_fetch.glsl"
#include "common/integral_fetch.glsl"
#include "common/hessian.glsl"

uniform USAMPLER u_cross;
uniform int u_step;
uniform ivec4 u_filters;
uniform ivec2 u_image_size;
uniform int u_cross_first_row;
#ifndef FIRST_LAYER
#define FIRST_LAYER 0
#endif
#if FIRST_LAYER > 0
uniform sampler2D u_previous_det;
uniform usampler2D u_previous_signs;
#endif

layout(location = 0) out vec4 o_det;
layout(location = 1) out uint o_signs;

// R(x) of the Dxx lobes at row y, lobe l: the sum of rows [y-l+1, y+l) of
// the columns < x; C(y) of the Dyy lobes at column x: the sum of columns
// [x-l+1, x+l) of the rows < y (both clamped into the integral image).
uint row_strip(int x, int l, int y) { return integral_at(x, y + l) - integral_at(x, y - l + 1); }
uint column_strip(int x, int l, int y) { return integral_at(x + l, y) - integral_at(x - l + 1, y); }

void main() {
  ivec2 sample_index = ivec2(gl_FragCoord.xy);
  ivec2 p = sample_index * u_step;
  // Row length of the cross strip (only LINEAR_FETCH uses it).
  int cross_width = u_image_size.x + 1;
  vec4 det = vec4(0.0);
  uint signs = 0u;
#if FIRST_LAYER > 0
  ivec2 finer = 2 * sample_index;
  vec4 previous_det = texelFetch(u_previous_det, finer, 0);
  uint previous_signs = texelFetch(u_previous_signs, finer, 0).r;
  det.xy = vec2(previous_det.y, FIRST_LAYER > 1 ? previous_det.w : 0.0);
  signs = ((previous_signs >> 1) & 1u) | (FIRST_LAYER > 1 ? ((previous_signs >> 3) & 1u) << 1 : 0u);
#endif
  // Every layer's look-ups run unconditionally (coordinates clamped into the
  // strip and the integral image; a filter that does not fit gives 0 below),
  // so that the compiler can merge the look-ups the layers share; per-layer
  // branches kept it from that (2.8 ms more at 640 x 480 on llvmpipe, medians
  // of four interleaved rounds, when the lobes were read from strips).
  int i = sample_index.y - u_cross_first_row;  // the cross strip's row
  int last_x = u_image_size.x;  // the cross strip is W + 1 wide
  for (int k = FIRST_LAYER; k < 4; ++k) {
    int L = u_filters[k];
    int c = L / 2;
    int l = L / 3;
    bool inside = L != 0 && all(greaterThanEqual(p, ivec2(c))) && all(lessThanEqual(p + c, u_image_size - 1));
    uint xx = 3u * (row_strip(p.x - c + l, l, p.y) - row_strip(p.x - c + 2 * l, l, p.y)) +
              row_strip(p.x + c + 1, l, p.y) - row_strip(p.x - c, l, p.y);
    uint yy = 3u * (column_strip(p.x, l, p.y - c + l) - column_strip(p.x, l, p.y - c + 2 * l)) +
              column_strip(p.x, l, p.y + c + 1) - column_strip(p.x, l, p.y - c);
    uint xy = FETCH(u_cross, ivec2(p.x, i), cross_width)[k] - FETCH(u_cross, ivec2(clamp(p.x - l, 0, last_x), i), cross_width)[k] -
              FETCH(u_cross, ivec2(clamp(p.x + l + 1, 0, last_x), i), cross_width)[k] + FETCH(u_cross, ivec2(p.x + 1, i), cross_width)[k];
    float dxx = float(int(xx)) / float(l * (2 * l - 1));
    float dyy = float(int(yy)) / float(l * (2 * l - 1));
    float dxy = float(int(xy)) / float(l * l);
    det[k] = inside ? dxx * dyy - dxy_weight(l) * dxy * dxy : 0.0;
    signs |= inside && dxx + dyy < 0.0 ? 1u << k : 0u;
  }
  o_det = det;
  o_signs = signs;
}
