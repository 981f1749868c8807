#version 330 core
// sift/descriptor_cells.frag — one cell of an entry's descriptor window
// (docs/notes/sift.md, Descriptor; cpu::sift::describe), not yet summed or
// normalised: the samples whose trilinear corner (r0, c0) = (floor(rbin),
// floor(cbin)) is the fragment's cell (cr, cc), cr, cc in -1 .. d - 1, each
// weighted by its magnitude and the Gaussian, shared between the 4 spatial
// bins (cr + i, cc + j), i, j in {0, 1}, and between 2 orientation bins:
// 32 sums, 8 per spatial bin (those of bins outside 0 .. d - 1 are
// dropped by the readers, descriptor_bins.glsl).
//
// Why cells: every sample taken falls in one cell, so the 25 fragments of
// an entry visit each sample once. A fragment per spatial bin (8 sums, two
// outputs) must visit every sample that reaches its bin, the rotated 2 x 2
// cells around it: each sample 2.56 times on average; on llvmpipe the
// three passes took 1.5 times as long (5,211 entries of blob noise: 516
// against 760 ms, medians of 10, the same run). 32 sums are 8 outputs,
// what GL 3.3 guarantees; the readers add up a bin's 4 cells, the
// products themselves being the CPU's.
//
// A fragment visits the rows, and per row the columns, of its cell's
// rotated square (kSpare beyond the bounds, each pixel then tested exactly
// as the CPU tests it). The entry's 25 cells are a 5 x 5 tile
// (common/blocks.glsl; llvmpipe's 4 x 4 blocks of fragments then run over
// one or a few entries: measured faster than 8 x 4 tiles with 7 idle
// fragments). Sums are added to by comparisons rather than by an index,
// which llvmpipe turns into a store per fragment, and a row's left and
// centre samples are carried along it (measured with a fragment per spatial
// bin: 20 % and 14 % faster).
//
// Defines:  MAX_OCTAVES (sift/orientation_gradient.glsl)
// Inputs:   u_gaussian, u_octaves, u_points (x, y, sigma, angle in degrees,
//           [0, 360)), u_scales (orientation_gradient.glsl)
// Uniforms: u_first, u_count  the chunk: entries u_first .. u_first +
//           u_count - 1, entry u_first + t in tile t
// Output:   a 5 x 5 tile per entry, texel (cc + 1, cr + 1) cell (cr, cc);
//           location 2 (2 i + j) + h: spatial bin (cr + i, cc + j),
//           orientations 4 h .. 4 h + 3.
// Viewport: ceil(u_count / 204) rows of tiles, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "sift/orientation_gradient.glsl"

uniform int u_first;
uniform int u_count;

layout(location = 0) out vec4 o_cell[8];

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
  ivec2 tile = tile_of(ivec2(gl_FragCoord.xy), 5);
  vec4 sums[8];
  for (int q = 0; q < 8; ++q) sums[q] = vec4(0.0);
  if (tile.x < u_count) {
    int entry = u_first + tile.x, cr = tile.y / 5 - 1, cc = tile.y % 5 - 1;
    vec4 point = texelFetch(u_points, texel_of(entry), 0);
    GaussianImage image = entry_image(texelFetch(u_scales, texel_of(entry), 0));
    float x = point.x, y = point.y, sigma = point.z;
    float theta = point.w * kRadiansPerDegree;
    float cos_t = cos(theta), sin_t = sin(theta);
    float hist_width = 3.0 * sigma;
    ivec2 size = image.size;
    // At most the diagonal (exact in float where it is the smaller: a
    // coarse octave).
    float diagonal = round_half_away(sqrt(float(size.x) * float(size.x) + float(size.y) * float(size.y)));
    int radius =
        int(round_half_away(min(hist_width * 1.41421356237309504880 * float(kD + 1) / 2.0, diagonal)));
    int cx = int(round_half_away(x)), cy = int(round_half_away(y));

    // The cell: rbin in [cr, cr + 1), r = rbin - (d/2 - 0.5) in hist widths,
    // and the same for the columns. (Only where the loops go: rbin and cbin
    // themselves are rounded as the CPU rounds them.)
    const float kShift = float(kD / 2) - 0.5;
    vec2 r_range = vec2(float(cr), float(cr + 1)) - kShift;
    vec2 c_range = vec2(float(cc), float(cc + 1)) - kShift;
    // v = hist_width (r cos - c sin) over the square's corners.
    vec2 rv = r_range * cos_t, cv = -c_range * sin_t;
    float v_lo = hist_width * (min(rv.x, rv.y) + min(cv.x, cv.y));
    float v_hi = hist_width * (max(rv.x, rv.y) + max(cv.x, cv.y));
    // Bounds held to the image before they become ints (any sigma).
    vec2 rows = clamp(vec2(ceil(y + v_lo - kSpare), floor(y + v_hi + kSpare)), -1.0, float(size.y));
    int y0 = max(max(cy - radius, 1), int(rows.x));
    int y1 = min(min(cy + radius, size.y - 2), int(rows.y));
    int wx0 = max(cx - radius, 1), wx1 = min(cx + radius, size.x - 2);

    for (int py = y0; py <= y1; ++py) {
      float v = float(py) - y;
      // c hist_width = u cos - v sin, r hist_width = u sin + v cos.
      vec2 uc = interval(cos_t, -v * sin_t, c_range.x * hist_width, c_range.y * hist_width);
      vec2 ur = interval(sin_t, v * cos_t, r_range.x * hist_width, r_range.y * hist_width);
      vec2 columns = clamp(vec2(ceil(x + max(uc.x, ur.x)), floor(x + min(uc.y, ur.y))), -1.0, float(size.x));
      int x0 = max(wx0, int(columns.x));
      int x1 = min(wx1, int(columns.y));
      if (x0 > x1) continue;
      // L(px - 1, py) and L(px, py), carried along the row.
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
        if (int(r0) != cr || int(c0) != cc) continue;
        float fr = rbin - r0, fc = cbin - c0;
        float magnitude = sqrt(d.x * d.x + d.y * d.y);
        float weight = exp(-(c_rot * c_rot + r_rot * r_rot) / float(2 * (kD / 2) * (kD / 2)));
        float obin = (atan(d.y, d.x) - theta) * float(kN) / kTwoPi;
        // The CPU's while loops, for angles in [0, 360): obin > -12.
        obin = obin < 0.0 ? obin + float(kN) : obin;
        obin = obin < 0.0 ? obin + float(kN) : obin;
        obin = obin >= float(kN) ? obin - float(kN) : obin;
        float o0 = floor(obin), fo = obin - o0;
        int o = int(o0), o1 = (o + 1) % kN;
        // 1 - fo at orientation o, fo at o + 1, 0 elsewhere: each sum gets
        // value (1 - fr or fr) (1 - fc or fc) (1 - fo or fo), the CPU's
        // product, or 0.
        vec4 low = (1.0 - fo) * vec4(equal(ivec4(o), ivec4(0, 1, 2, 3))) +
                   fo * vec4(equal(ivec4(o1), ivec4(0, 1, 2, 3)));
        vec4 high = (1.0 - fo) * vec4(equal(ivec4(o), ivec4(4, 5, 6, 7))) +
                    fo * vec4(equal(ivec4(o1), ivec4(4, 5, 6, 7)));
        float value = weight * magnitude;
        float w00 = value * (1.0 - fr) * (1.0 - fc), w01 = value * (1.0 - fr) * fc;
        float w10 = value * fr * (1.0 - fc), w11 = value * fr * fc;
        sums[0] += w00 * low;
        sums[1] += w00 * high;
        sums[2] += w01 * low;
        sums[3] += w01 * high;
        sums[4] += w10 * low;
        sums[5] += w10 * high;
        sums[6] += w11 * low;
        sums[7] += w11 * high;
      }
    }
  }
  for (int q = 0; q < 8; ++q) o_cell[q] = sums[q];
}
