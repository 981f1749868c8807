#version 330 core
// hessian/hessian_single.frag — det(H) and the Laplacian's signs for up to four filter sizes of
// one octave, each from its eight box sums looked up directly: the plain
// single-pass version, kept as the test oracle and benchmark baseline.
//
// Filters (side L, lobe l = L / 3, centre c = L / 2, offsets from the centre
// pixel, half-open): Dxx lobes x in [-c, -c+l), [-c+l, -c+2l), [-c+2l, c+1),
// weights +1 -2 +1, y in [-(l-1), l); Dyy transposed; Dxy squares at
// [-l, 0) and [1, l+1), +1 on the diagonal, -1 off it. Each lobe sum is divided
// by its area; det = Dxx Dyy - w(l) Dxy^2 (common/hessian.glsl), trace = Dxx + Dyy (src/cpu/detector.hpp).
//
// Input:    u_integral  the integral image (common/integral_fetch.glsl, 2-D)
// Uniforms: u_step      sampling step of the octave (2^o times the first step)
//           u_filters   filter sides of the layers in channels r, g, b, a;
//                       0 for an unused channel
//           u_image_size W, H
//           u_integral_size W + 1, H + 1
// Output:   location 0: det per layer (RGBA32F), location 1: the signs (R8UI,
//           bit k set where layer k's trace is negative); det 0 and bit clear
//           where the filter does not lie inside the image.
// Viewport: the octave's sample grid, ceil(W / step) x ceil(H / step); texel
//           (j, i) is the filter centred on pixel (j * step, i * step).
#include "common/precision.glsl"
#include "common/box.glsl"
#include "common/hessian.glsl"

uniform int u_step;
uniform ivec4 u_filters;
uniform ivec2 u_image_size;

layout(location = 0) out vec4 o_det;
layout(location = 1) out uint o_signs;

// (det, trace) of filter side L at pixel p, or 0 when it leaves the image.
vec2 hessian(ivec2 p, int L) {
  int c = L / 2;
  if (L == 0 || any(lessThan(p, ivec2(c))) || any(greaterThan(p + c, u_image_size - 1))) return vec2(0.0);
  int l = L / 3;
  int x = p.x, y = p.y;
  int xx = int(box_sum(x - c, y - l + 1, x - c + l, y + l) -
               2u * box_sum(x - c + l, y - l + 1, x - c + 2 * l, y + l) +
               box_sum(x - c + 2 * l, y - l + 1, x + c + 1, y + l));
  int yy = int(box_sum(x - l + 1, y - c, x + l, y - c + l) -
               2u * box_sum(x - l + 1, y - c + l, x + l, y - c + 2 * l) +
               box_sum(x - l + 1, y - c + 2 * l, x + l, y + c + 1));
  int xy = int(box_sum(x - l, y - l, x, y) - box_sum(x + 1, y - l, x + l + 1, y) -
               box_sum(x - l, y + 1, x, y + l + 1) + box_sum(x + 1, y + 1, x + l + 1, y + l + 1));
  float dxx = float(xx) / float(l * (2 * l - 1));
  float dyy = float(yy) / float(l * (2 * l - 1));
  float dxy = float(xy) / float(l * l);
  return vec2(dxx * dyy - dxy_weight(l) * dxy * dxy, dxx + dyy);
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) * u_step;
  vec2 r = hessian(p, u_filters.r);
  vec2 g = hessian(p, u_filters.g);
  vec2 b = hessian(p, u_filters.b);
  vec2 a = hessian(p, u_filters.a);
  o_det = vec4(r.x, g.x, b.x, a.x);
  bvec4 negative = lessThan(vec4(r.y, g.y, b.y, a.y), vec4(0.0));
  o_signs = (negative.x ? 1u : 0u) | (negative.y ? 2u : 0u) | (negative.z ? 4u : 0u) | (negative.w ? 8u : 0u);
}
