#version 330 core
// sift/descriptor_bins.frag — one spatial bin (row sr, column sc) of an
// entry's 4 x 4 x 8 descriptor (docs/notes/sift.md, Descriptor;
// cpu::sift::describe), not yet normalised: the magnitude-weighted
// gradients of the window around the entry, in its frame turned by its
// angle, Gaussian-weighted, shared trilinearly between neighbouring spatial
// and orientation bins; the 8 orientation values of this spatial bin.
//
// The entry's 16 spatial bins are the 16 fragments of a 4 x 4 tile
// (common/blocks.glsl): llvmpipe shades a 4 x 4 block of fragments
// together, so its loops run over one entry's window. A fragment visits
// only the pixels whose trilinear weights reach its bin: rows and, per row,
// columns of the rotated 2 x 2 bin square around it (kSpare beyond the
// bounds, each pixel then tested exactly as the CPU tests it), about 2/5 of
// the window rather than all of it, and keeps 8 sums rather than 128. Each
// of its sums adds the same products in the same (row-major) order as the
// CPU's loop over the window. The sums are added to by comparisons rather
// than by an index, which llvmpipe turns into a store per fragment
// (measured: the pass 20 % faster), and the row's left and centre samples
// are carried along it (14 % faster).
//
// Defines:  MAX_OCTAVES (sift/orientation_gradient.glsl)
// Inputs:   u_gaussian, u_octaves, u_points (x, y, sigma, angle in degrees),
//           u_scales (orientation_gradient.glsl)
// Uniform:  u_count   entries
// Output:   a 4 x 4 tile per entry, texel (sc, sr) spatial bin (sr, sc):
//           location 0 orientations 0..3, location 1 orientations 4..7.
// Viewport: ceil(count / 256) rows of tiles, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "sift/orientation_gradient.glsl"

uniform int u_count;

layout(location = 0) out vec4 o_low;
layout(location = 1) out vec4 o_high;

const int kD = 4;  // spatial bins per side
const int kN = 8;  // orientation bins
const float kTwoPi = 6.28318530717958647692;
const float kRadiansPerDegree = 0.0174532925199432957692;
// Pixels to spare around the computed bounds: far more than their rounding.
const float kSpare = 0.01;

// The interval of u where lo < u * f + g < hi, kSpare wider; all of
// (-inf, inf) when f is nearly 0 (the other constraint bounds u then).
vec2 interval(float f, float g, float lo, float hi) {
  if (abs(f) < 1e-3) return vec2(-1e9, 1e9);
  float a = (lo - g) / f, b = (hi - g) / f;
  return vec2(min(a, b) - kSpare, max(a, b) + kSpare);
}

void main() {
  ivec2 tile = tile_of(ivec2(gl_FragCoord.xy), 4);
  vec4 low = vec4(0.0), high = vec4(0.0);
  if (tile.x < u_count) {
    int entry = tile.x, sr = tile.y / kD, sc = tile.y % kD;
    vec4 point = texelFetch(u_points, texel_of(entry), 0);
    GaussianImage image = entry_image(texelFetch(u_scales, texel_of(entry), 0));
    float x = point.x, y = point.y, sigma = point.z;
    float theta = point.w * kRadiansPerDegree;
    float cos_t = cos(theta), sin_t = sin(theta);
    float hist_width = 3.0 * sigma;
    int radius = int(round_half_away(hist_width * 1.41421356237309504880 * float(kD + 1) / 2.0));
    ivec2 size = image.size;
    radius = min(radius, int(round_half_away(sqrt(float(size.x * size.x + size.y * size.y)))));
    int cx = int(round_half_away(x)), cy = int(round_half_away(y));

    // rbin in [sr - 1, sr + 1) and in (-1, d); r = rbin - (d/2 - 0.5), in
    // hist widths; the same for the columns. (Only where the loops go:
    // rbin and cbin themselves are rounded as the CPU rounds them.)
    const float kShift = float(kD / 2) - 0.5;
    vec2 r_range = vec2(max(float(sr) - 1.0, -1.0), min(float(sr) + 1.0, float(kD))) - kShift;
    vec2 c_range = vec2(max(float(sc) - 1.0, -1.0), min(float(sc) + 1.0, float(kD))) - kShift;
    // v = hist_width (r cos - c sin) over the square's corners.
    vec2 rv = r_range * cos_t, cv = -c_range * sin_t;
    float v_lo = hist_width * (min(rv.x, rv.y) + min(cv.x, cv.y));
    float v_hi = hist_width * (max(rv.x, rv.y) + max(cv.x, cv.y));
    int y0 = max(max(cy - radius, 1), int(ceil(y + v_lo - kSpare)));
    int y1 = min(min(cy + radius, size.y - 2), int(floor(y + v_hi + kSpare)));
    int wx0 = max(cx - radius, 1), wx1 = min(cx + radius, size.x - 2);

    for (int py = y0; py <= y1; ++py) {
      float v = float(py) - y;
      // c hist_width = u cos - v sin, r hist_width = u sin + v cos.
      vec2 uc = interval(cos_t, -v * sin_t, c_range.x * hist_width, c_range.y * hist_width);
      vec2 ur = interval(sin_t, v * cos_t, r_range.x * hist_width, r_range.y * hist_width);
      int x0 = max(wx0, int(ceil(x + max(uc.x, ur.x))));
      int x1 = min(wx1, int(floor(x + min(uc.y, ur.y))));
      // L(px - 1, py) and L(px, py), carried along the row: a fetch less per pixel.
      float left = gaussian_at(image, x0 - 1, py), middle = gaussian_at(image, x0, py);
      for (int px = x0; px <= x1; ++px) {
        float right = gaussian_at(image, px + 1, py);
        vec2 d = vec2(right - left, gaussian_at(image, px, py - 1) - gaussian_at(image, px, py + 1));
        left = middle;
        middle = right;
        float u = float(px) - x;
        float c_rot = (u * cos_t - v * sin_t) / hist_width;
        float r_rot = (u * sin_t + v * cos_t) / hist_width;
        float cbin = c_rot + float(kD / 2) - 0.5, rbin = r_rot + float(kD / 2) - 0.5;
        if (!(rbin > -1.0 && rbin < float(kD) && cbin > -1.0 && cbin < float(kD))) continue;
        float r0 = floor(rbin), c0 = floor(cbin);
        int dr = sr - int(r0), dc = sc - int(c0);
        if (dr < 0 || dr > 1 || dc < 0 || dc > 1) continue;
        float fr = rbin - r0, fc = cbin - c0;
        float magnitude = sqrt(d.x * d.x + d.y * d.y);
        float weight = exp(-(c_rot * c_rot + r_rot * r_rot) / float(2 * (kD / 2) * (kD / 2)));
        float obin = (atan(d.y, d.x) - theta) * float(kN) / kTwoPi;
        // The CPU's while loops, for angles in [0, 360): obin > -12.
        obin = obin < 0.0 ? obin + float(kN) : obin;
        obin = obin < 0.0 ? obin + float(kN) : obin;
        obin = obin >= float(kN) ? obin - float(kN) : obin;
        float o0 = floor(obin), fo = obin - o0;
        float value = weight * magnitude * (dr == 0 ? 1.0 - fr : fr) * (dc == 0 ? 1.0 - fc : fc);
        int o = int(o0), o1 = (o + 1) % kN;
        float v0 = value * (1.0 - fo), v1 = value * fo;
        low += v0 * vec4(equal(ivec4(o), ivec4(0, 1, 2, 3))) + v1 * vec4(equal(ivec4(o1), ivec4(0, 1, 2, 3)));
        high += v0 * vec4(equal(ivec4(o), ivec4(4, 5, 6, 7))) + v1 * vec4(equal(ivec4(o1), ivec4(4, 5, 6, 7)));
      }
    }
  }
  o_low = low;
  o_high = high;
}
