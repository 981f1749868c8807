#version 330 core
// descriptor/sums.frag — one sub-region of a keypoint's descriptor
// (src/cpu/descriptor.hpp): its 5 x 5 samples of the 20 x 20 grid spaced s
// and rotated to the keypoint's orientation; at each, the axis-aligned Haar
// responses of side even_side(HAAR_SIDE s), rotated into the keypoint's
// frame and weighted by a Gaussian of sigma SIGMA s centred on the keypoint;
// summed. HAAR_SIDE and SIGMA are defined from cpu::kDescriptorHaar and
// cpu::kDescriptorSigma (4 and 6).
//
// Inputs:   u_list      point list (RGBA32F: x, y, size * laplacian, response)
//           u_angles    orientation per keypoint (R32F, degrees ccw)
//           u_extra     entries u_primary .. u_count - 1: (list entry, angle)
//                       per entry (RG32F), for second orientations
//           u_quads     the integral image as quads (common/haar.glsl), and
//                       u_quads_size their size
// Uniforms: u_count (entries), u_primary (the first u_primary are list
//           entries 0 .. u_primary - 1 at their angles)
// Output:   location 0: (sum dx, sum dy, sum |dx|, sum |dy|), RGBA32F; with
//           EXTENDED, OpenCV's 8 values: location 0 (sum dx, sum |dx|) for
//           dy >= 0 then for dy < 0, location 1 (sum dy, sum |dy|) for dx >= 0
//           then for dx < 0 (negative: below -SPLIT_TOLERANCE times the other
//           component's magnitude, cpu::kSplitTolerance). A 4 x 4 tile per
//           keypoint (common/blocks.glsl), texel (u, v) of it sub-region
//           (u, v). Not yet normalised.
// Viewport: ceil(count / 256) rows of tiles, 1024 wide.
// Keypoints whose window lies inside the image with a margin (window_inside)
// take their responses from haar_inside, the others from haar, which clips
// each box at the border. The choice is two loops over the 25 samples, one
// of them empty for each keypoint, rather than a branch: llvmpipe runs both
// sides of a branch, but leaves a loop once no fragment of its group is in
// it, after one trip, and a keypoint's 4 x 4 tile is such a group
// (docs/notes/descriptor.md).
#include "common/precision.glsl"

uniform sampler2D u_list;
uniform sampler2D u_angles;
uniform sampler2D u_extra;
uniform int u_count;
uniform int u_primary;

layout(location = 0) out vec4 o_first;
#ifdef EXTENDED
layout(location = 1) out vec4 o_second;
#endif

#include "common/blocks.glsl"
#include "common/haar.glsl"

// Whether every Haar box of the keypoint's 20s window (samples up to 9.5 s
// from the centre along each of its axes, turned by (c, sn)) lies inside the
// image with `spare` pixels to spare beyond the half-pixel haar_inside needs
// (1.5 to 2.5 px more than it needs with spare 2).
bool window_inside(vec2 centre, float s, int h, float c, float sn, float spare) {
  float reach = 9.5 * s * (abs(c) + abs(sn)) + 0.5 * float(h) + spare;
  return all(greaterThanEqual(centre, vec2(reach))) && all(lessThanEqual(centre + reach, vec2(u_quads_size - 2)));
}

// Sample i (row i / 5, column i % 5) of the sub-region whose first sample
// is (col0, row0) of the 20 x 20 grid: its offset from the keypoint in the
// image, the grid turned by the angle whose cosine and sine are c, sn.
vec2 sample_offset(int i, int col0, int row0, float s, float c, float sn) {
  vec2 o = (vec2(float(col0 + i % 5), float(row0 + i / 5)) - 9.5) * s;
  return vec2(c * o.x - sn * o.y, sn * o.x + c * o.y);
}

// Its Gaussian weight, the product of its column's and its row's factors.
float sample_weight(int i, float wu[5], float wv[5]) {
  int u = i % 5, v = i / 5;
  return (u == 0 ? wu[0] : u == 1 ? wu[1] : u == 2 ? wu[2] : u == 3 ? wu[3] : wu[4]) *
         (v == 0 ? wv[0] : v == 1 ? wv[1] : v == 2 ? wv[2] : v == 3 ? wv[3] : wv[4]);
}

// Adds the response d (image axes), weighted by w and turned into the
// keypoint's frame, to the sub-region's sums.
void accumulate(vec2 d, float w, float c, float sn, inout vec4 first, inout vec4 second) {
  vec2 r = w * vec2(c * d.x + sn * d.y, -sn * d.x + c * d.y);
#ifdef EXTENDED
  // Negative only beyond rounding of the other component (cpu::kSplitTolerance).
  if (r.y >= -SPLIT_TOLERANCE * abs(r.x)) first.xy += vec2(r.x, abs(r.x)); else first.zw += vec2(r.x, abs(r.x));
  if (r.x >= -SPLIT_TOLERANCE * abs(r.y)) second.xy += vec2(r.y, abs(r.y)); else second.zw += vec2(r.y, abs(r.y));
#else
  first += vec4(r, abs(r));
#endif
}

void main() {
  ivec2 kr = tile_of(ivec2(gl_FragCoord.xy), 4);
  vec4 first = vec4(0.0), second = vec4(0.0);
  if (kr.x < u_count) {
    int entry = kr.x;
    float angle = texelFetch(u_angles, texel_of(min(entry, u_primary - 1)), 0).r;
    if (entry >= u_primary) {
      vec2 extra = texelFetch(u_extra, texel_of(entry - u_primary), 0).rg;
      entry = int(extra.r);
      angle = extra.g;
    }
    vec4 k = texelFetch(u_list, texel_of(entry), 0);
    float s = 1.2 * abs(k.z) / 9.0;
    ivec2 base = ivec2(floor(k.xy));
    vec2 frac = k.xy - vec2(base);
    int h = even_side(HAAR_SIDE * s);
    float theta = -radians(angle);  // image frame
    float c = cos(theta), sn = sin(theta);
    // In sample units (s cancels), so that no size under- or overflows it.
    const float two_sigma2 = 2.0 * SIGMA * SIGMA;
    int row0 = (kr.y / 4) * 5, col0 = (kr.y % 4) * 5;
    // The Gaussian is separable: 10 exponentials per sub-region instead of 25
    // (a sixth of this pass's time on llvmpipe, docs/notes/descriptor.md).
    float wu[5], wv[5];
    for (int i = 0; i < 5; ++i) {
      float a = float(col0 + i) - 9.5, b = float(row0 + i) - 9.5;
      wu[i] = exp(-a * a / two_sigma2);
      wv[i] = exp(-b * b / two_sigma2);
    }
    // Samples i < inside_samples by haar_inside, the rest by haar. The
    // loops stay rolled (a bound per fragment), so sample_weight picks the
    // weights by selects rather than by indexing, which would put them in
    // memory.
    int inside_samples = window_inside(k.xy, s, h, c, sn, 2.0) ? 25 : 0;
    for (int i = 0; i < inside_samples; ++i) {
      vec2 d = haar_inside(base, frac + sample_offset(i, col0, row0, s, c, sn), h);
      accumulate(d, sample_weight(i, wu, wv), c, sn, first, second);
    }
    for (int i = inside_samples; i < 25; ++i) {
      vec2 d = haar(base, frac + sample_offset(i, col0, row0, s, c, sn), h);
      accumulate(d, sample_weight(i, wu, wv), c, sn, first, second);
    }
  }
  o_first = first;
#ifdef EXTENDED
  o_second = second;
#endif
}
