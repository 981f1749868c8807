#version 330 core
// sift/orientation.frag — the orientations of one list entry
// (docs/notes/sift.md, Orientation; cpu::sift::orientations): the 36-bin
// histogram of the gradients in its window, weighted by magnitude and a
// Gaussian of 1.5 sigma around the sub-pixel position, smoothed circularly
// by [1 4 6 4 1] / 16; its peaks of at least 0.8 of the maximum, each
// placed by the parabola through it and its neighbours, highest first.
//
// A gather: one fragment per entry walks its window once and keeps the
// histogram in registers, every gradient computed once (what llvmpipe's
// time follows). Splitting the window among fragments would need 36 partial
// sums a fragment, more outputs than GL 3.3 guarantees (8 vec4); scattering
// a point per pixel into a per-entry histogram row pays a primitive per
// pixel and blends 36 texels from a thousand points: 9.5 times as long on
// llvmpipe (src/sift/orientation.cpp). The histogram is indexed by bin:
// adding by comparisons (9 vec4s a pixel) took twice as long on llvmpipe.
// A row's left and centre samples are carried along it (5 % faster). Rows
// go four pixels at a time, three look-ups of the packed atlas for four
// pixels rather than three for each (graf1 resampled to 640 x 480, 1,956
// entries: 25-27 against 33-39 ms, medians of 6 frames, two interleaved
// pairs in one process).
//
// Defines:  MAX_OCTAVES (sift/orientation_gradient.glsl)
// Inputs:   u_gaussian, u_octaves, u_points, u_scales (orientation_gradient.glsl)
// Uniform:  u_count   list entries
// Output:   RGBA32F per entry (a run of 1, common/blocks.glsl): up to 4
//           angles in degrees, [0, 360), counter-clockwise on screen,
//           highest peak first (ties: lower bin first), -1 where none.
// Viewport: the rows that hold u_count entries, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "sift/orientation_gradient.glsl"

uniform int u_count;

layout(location = 0) out vec4 o_angles;

const int kBins = 36;
const float kTwoPi = 6.28318530717958647692;

void main() {
  int entry = block_of(ivec2(gl_FragCoord.xy), 1).x;
  o_angles = vec4(-1.0);
  if (entry >= u_count) return;
  vec4 point = texelFetch(u_points, texel_of(entry), 0);
  GaussianImage image = entry_image(texelFetch(u_scales, texel_of(entry), 0));
  float x = point.x, y = point.y, sigma = point.z;
  float sigma_w = 1.5 * sigma;
  float two_sw2 = 2.0 * sigma_w * sigma_w;
  // A radius beyond W + H takes every pixel, as W + H does (the CPU's bound).
  int radius = int(round_half_away(min(4.5 * sigma, float(image.size.x + image.size.y))));
  int cx = int(round_half_away(x)), cy = int(round_half_away(y));
  // The window, and the pixels whose gradient is defined.
  int x0 = max(cx - radius, 1), x1 = min(cx + radius, image.size.x - 2);
  int y0 = max(cy - radius, 1), y1 = min(cy + radius, image.size.y - 2);

  float hist[kBins];
  for (int j = 0; j < kBins; ++j) hist[j] = 0.0;
  for (int py = y0; py <= y1; ++py) {
    float v = float(py) - y;
    // A row four pixels at a time, from texels of the packed atlas: the
    // row's texel after this one and those above and below, three look-ups
    // for four pixels; the row's texels before and at this one carried.
    int t0 = x0 >> 2, t1 = x1 >> 2;
    vec4 before = gaussian_texel(image, t0 - 1, py), at = gaussian_texel(image, t0, py);
    for (int t = t0; t <= t1; ++t) {
      vec4 after = gaussian_texel(image, t + 1, py);
      vec4 dx = vec4(at.yzw, after.x) - vec4(before.w, at.xyz);
      vec4 dy = gaussian_texel(image, t, py - 1) - gaussian_texel(image, t, py + 1);
      before = at;
      at = after;
      for (int c = 0; c < 4; ++c) {
        int px = 4 * t + c;
        if (px < x0 || px > x1) continue;
        float u = float(px) - x;
        vec2 d = vec2(dx[c], dy[c]);
        float magnitude = sqrt(d.x * d.x + d.y * d.y);
        float weight = exp(-(u * u + v * v) / two_sw2);
        int bin = int(round_half_away(float(kBins) * atan(d.y, d.x) / kTwoPi));
        // An exactly diagonal gradient lies on a bin boundary, 4.5 bins from
        // an axis, and only the last rounding of the CPU's float arithmetic
        // places it: 45 and -45 degrees give 4.5 exactly (bins 5 and -5),
        // 135 and -135 degrees 13.499999 (bins 13 and -13), atan2f being
        // pi / 4 and 3 pi / 4 rounded to float. (In flat patches gradients of
        // one ulp each way are common, and there they are all the histogram.)
        if (abs(d.x) == abs(d.y) && d.x != 0.0) bin = (d.x > 0.0 ? 5 : 13) * (d.y > 0.0 ? 1 : -1);
        if (bin < 0) bin += kBins;
        if (bin >= kBins) bin -= kBins;
        hist[bin] += weight * magnitude;
      }
    }
  }

  // [1 4 6 4 1] / 16, circular, rounded as the CPU's (a + b) / 16 + 4 (c +
  // d) / 16 + 6 e / 16: the factors 1/16 and 4/16 are powers of two, and 6 e
  // / 16 is 6/16 e rounded once.
  float smoothed[kBins];
  float highest = 0.0;
  for (int j = 0; j < kBins; ++j) {
    float m2 = hist[(j + kBins - 2) % kBins], m1 = hist[(j + kBins - 1) % kBins];
    float p1 = hist[(j + 1) % kBins], p2 = hist[(j + 2) % kBins];
    smoothed[j] = (m2 + p2) * (1.0 / 16.0) + (m1 + p1) * (4.0 / 16.0) + hist[j] * (6.0 / 16.0);
    highest = max(highest, smoothed[j]);
  }

  // The peaks, kept highest first in `peak` (heights) and `angles`: a later
  // bin goes after an earlier one of the same height.
  vec4 peak = vec4(-1.0), angles = vec4(-1.0);
  float threshold = 0.8 * highest;
  for (int j = 0; j < kBins; ++j) {
    float l = smoothed[(j + kBins - 1) % kBins], c = smoothed[j], r = smoothed[(j + 1) % kBins];
    if (!(c > l && c > r && c >= threshold)) continue;
    float bin = float(j) + (l - r) / (2.0 * (l - 2.0 * c + r));
    float angle = bin * (360.0 / float(kBins));
    if (angle < 0.0) angle += 360.0;
    if (angle >= 360.0) angle -= 360.0;
    if (c > peak.x) {
      peak = vec4(c, peak.xyz);
      angles = vec4(angle, angles.xyz);
    } else if (c > peak.y) {
      peak = vec4(peak.x, c, peak.yz);
      angles = vec4(angles.x, angle, angles.yz);
    } else if (c > peak.z) {
      peak.zw = vec2(c, peak.z);
      angles.zw = vec2(angle, angles.z);
    } else if (c > peak.w) {
      peak.w = c;
      angles.w = angle;
    }
  }
  o_angles = angles;
}
