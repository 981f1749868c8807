#version 330 core
// hessian/hessian_multipass.frag — second pass of the multi-pass box filters:
// det(H) and trace of up to four layers from the cross strip
// (strips_cross.frag) and the integral image, at four neighbouring samples
// per fragment (common/planes.glsl). Dxy takes 4 strip look-ups per filter;
// Dxx and Dyy take 8
// integral look-ups each, two per lobe strip R or C below, which this pass
// forms itself (on llvmpipe, passes and buffer copies of their own for them
// cost more than these look-ups). Same filters and the same integer lobe
// sums as hessian_single.frag, so the same numbers.
//
// With c = L / 2 and l = L / 3, at sample (X, Y) = (j, i) * step:
//   Dxx sum = -R(X-c) + 3 R(X-c+l) - 3 R(X-c+2l) + R(X+c+1)   R(x) = S(x, Y+l) - S(x, Y-l+1)
//   Dyy sum = -C(Y-c) + 3 C(Y-c+l) - 3 C(Y-c+2l) + C(Y+c+1)   C(y) = S(X+l, y) - S(X-l+1, y)
//   Dxy sum = Q(X) - Q(X-l) - Q(X+l+1) + Q(X+1)                Q = cross strip
// (R sums rows [Y-l+1, Y+l) of the columns < x, C columns [X-l+1, X+l) of
// the rows < y, so that each lobe of the +1 -2 +1 pattern is one strip
// difference), then each divided by its lobe area; det = Dxx Dyy - 0.81
// Dxy^2, trace = Dxx + Dyy.
//
// Four samples to a fragment, j = 4m .. 4m+3, as uvec4 lanes: each look-up
// above is made for all four at once. At step 1 their columns are four
// consecutive ones, two texels of the packed integral image or strip
// (STEP_ONE), so a fragment makes half the look-ups that four of one sample
// would (docs/NOTES.md: Detector speed); at other steps each lane reads its
// own value (the integral image's buffer copy read as R32UI).
//
// With FIRST_LAYER = 1 or 2 (the first group of octaves after the first),
// layers k < FIRST_LAYER are not computed but copied: filter_size(o, k) =
// filter_size(o - 1, 2k + 1) (surf/keypoint.hpp) and sample (j, i) of octave
// o is sample (2j, 2i) of octave o - 1, so layer k here is layer 2k + 1 of
// the octave before, at every other sample: the same integer sums, the same
// numbers. The layers copied from, 1 and 3, are in that octave's first group.
//
// Inputs:   u_cross  the strip, layer k in plane k (RGBA32UI array, 4 columns
//           to a texel; with LINEAR_FETCH its buffer copy, planes one after
//           another)
//           u_integral (common/integral_fetch.glsl; INTEGRAL_TEXELS at step 1)
//           u_previous_det, u_previous_trace  with FIRST_LAYER > 0: the first
//           group of the octave before (common/planes.glsl)
// Uniforms: u_step, u_filters, u_image_size, u_integral_size
// Defines:  FIRST_LAYER (default 0; a define so that the loop unrolls),
//           STEP_ONE (u_step is 1)
// Output:   planes 0 .. 3 of det (locations 0 .. 3) and of trace (4 .. 7),
//           layer per channel; 0 where the filter does not lie inside the
//           image. Lanes past the grid's last sample hold unspecified values
//           (readers clamp to the grid).
// Viewport: ceil(grid width / 4) x grid height of the octave.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"
#ifdef STEP_ONE
#define INTEGRAL_TEXELS
#endif
#include "common/integral_fetch.glsl"
#include "common/planes.glsl"

#ifdef LINEAR_FETCH
uniform usamplerBuffer u_cross;
#else
uniform usampler2DArray u_cross;
#endif
uniform int u_step;
uniform ivec4 u_filters;
uniform ivec2 u_image_size;
#ifndef FIRST_LAYER
#define FIRST_LAYER 0
#endif
#if FIRST_LAYER > 0
uniform sampler2DArray u_previous_det;
uniform sampler2DArray u_previous_trace;
#endif

layout(location = 0) out vec4 o_det[4];
layout(location = 4) out vec4 o_trace[4];

int first_sample;  // j of lane 0: 4m
int sample_row;    // i

bvec4 both(bvec4 a, bvec4 b) { return bvec4(uvec4(a) & uvec4(b)); }

// Texels in a row of the integral image and of the strip.
int texels_per_row() { return (u_integral_size.x + 3) >> 2; }

#ifdef STEP_ONE
// Texel t (clamped) of row i of the strip's plane k.
uvec4 cross_texel(int k, int t, int i) {
  int width = texels_per_row();
  t = clamp(t, 0, width - 1);
#ifdef LINEAR_FETCH
  int rows = (u_image_size.y - 1) / u_step + 1;
  return texelFetch(u_cross, (k * rows + i) * width + t);
#else
  return texelFetch(u_cross, ivec3(t, i, k), 0);
#endif
}
#else
uint channel(uvec4 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

// The strip of layer k at column x (clamped into the packed rows), row i: at
// steps above 1 each lane reads its own. (Its channel, x & 3, is the same for
// every fragment, so the selects cost little.)
uint cross_value(int k, int x, int i) {
  int width = texels_per_row();
  x = clamp(x, 0, 4 * width - 1);
#ifdef LINEAR_FETCH
  int rows = (u_image_size.y - 1) / u_step + 1;
  return channel(texelFetch(u_cross, (k * rows + i) * width + (x >> 2)), x & 3);
#else
  return channel(texelFetch(u_cross, ivec3(x >> 2, i, k), 0), x & 3);
#endif
}
#endif

// S at column X + offset and row y for the four lanes' sample columns X.
uvec4 lanes_integral(int offset, int y) {
#ifdef STEP_ONE
  return integral_run(first_sample + offset, y);
#else
  uvec4 r;
  for (int a = 0; a < 4; ++a) r[a] = integral_at((first_sample + a) * u_step + offset, y);
  return r;
#endif
}

// The strip of layer k at column X + offset for the four lanes.
uvec4 lanes_cross(int k, int offset) {
#ifdef STEP_ONE
  int x = first_sample + offset;
  return four_from(cross_texel(k, x >> 2, sample_row), cross_texel(k, (x >> 2) + 1, sample_row), x & 3);
#else
  uvec4 r;
  for (int a = 0; a < 4; ++a) r[a] = cross_value(k, (first_sample + a) * u_step + offset, sample_row);
  return r;
#endif
}

// R(X + offset) of layer lobe l at row y for the four lanes.
uvec4 row_strips(int offset, int l, int y) { return lanes_integral(offset, y + l) - lanes_integral(offset, y - l + 1); }
// C(y) of lobe l for the four lanes.
uvec4 column_strips(int l, int y) { return lanes_integral(l, y) - lanes_integral(-l + 1, y); }

void main() {
  first_sample = 4 * int(gl_FragCoord.x);
  sample_row = int(gl_FragCoord.y);
  int y = sample_row * u_step;
  ivec4 x = (first_sample + ivec4(0, 1, 2, 3)) * u_step;  // the lanes' pixel columns
  mat4 det = mat4(0.0), trace = mat4(0.0);  // [layer][lane]
#if FIRST_LAYER > 0
  // Sample 2j of the octave before, for j = 4m + a: texel 2m + a / 2 of plane 2a mod 4.
  int previous_width = textureSize(u_previous_det, 0).x;
  for (int a = 0; a < 4; ++a) {
    ivec3 q = ivec3(min(2 * int(gl_FragCoord.x) + a / 2, previous_width - 1), 2 * sample_row, (2 * a) & 3);
    vec4 previous_det = texelFetch(u_previous_det, q, 0), previous_trace = texelFetch(u_previous_trace, q, 0);
    det[0][a] = previous_det.y;
    trace[0][a] = previous_trace.y;
    det[1][a] = FIRST_LAYER > 1 ? previous_det.w : 0.0;
    trace[1][a] = FIRST_LAYER > 1 ? previous_trace.w : 0.0;
  }
#endif
  // Every layer's look-ups run unconditionally (coordinates clamped; a
  // filter that does not fit gives 0 below), so that the compiler can merge
  // the look-ups the layers share; per-layer branches kept it from that
  // (2.8 ms more at 640 x 480 on llvmpipe, medians of four interleaved
  // rounds, when the lobes were read from strips).
  for (int k = FIRST_LAYER; k < 4; ++k) {
    int L = u_filters[k];
    int c = L / 2;
    int l = L / 3;
    bool rows_inside = L != 0 && y >= c && y + c <= u_image_size.y - 1;
    bvec4 inside = both(both(greaterThanEqual(x, ivec4(c)), lessThanEqual(x + c, ivec4(u_image_size.x - 1))),
                        bvec4(rows_inside));
    uvec4 xx = 3u * (row_strips(-c + l, l, y) - row_strips(-c + 2 * l, l, y)) + row_strips(c + 1, l, y) -
               row_strips(-c, l, y);
    uvec4 yy = 3u * (column_strips(l, y - c + l) - column_strips(l, y - c + 2 * l)) + column_strips(l, y + c + 1) -
               column_strips(l, y - c);
    uvec4 xy = lanes_cross(k, 0) - lanes_cross(k, -l) - lanes_cross(k, l + 1) + lanes_cross(k, 1);
    vec4 dxx = vec4(ivec4(xx)) / float(l * (2 * l - 1));
    vec4 dyy = vec4(ivec4(yy)) / float(l * (2 * l - 1));
    vec4 dxy = vec4(ivec4(xy)) / float(l * l);
    det[k] = mix(vec4(0.0), dxx * dyy - 0.81 * dxy * dxy, inside);
    trace[k] = mix(vec4(0.0), dxx + dyy, inside);
  }
  mat4 det_lanes = transpose(det), trace_lanes = transpose(trace);
  for (int a = 0; a < 4; ++a) {
    o_det[a] = det_lanes[a];
    o_trace[a] = trace_lanes[a];
  }
}
