// common/haar.glsl — Haar wavelet responses and box gradients from the
// integral image, as src/cpu/descriptor.cpp. Haar: side h (even) centred
// exactly on the real point p, dx = mean(right half) - mean(left half),
// dy = mean(bottom) - mean(top).
// A box mean at sub-pixel position interpolates bilinearly between the four
// pixel-aligned boxes around it (the exact area mean of the piecewise-
// constant image): 4 quad fetches, 8 for a Haar pair whose halves share
// corners. Near the border, aligned boxes are clipped and averaged over what
// is left, and a half wholly outside makes that response 0.
//
// Needs: the quads (orientation/quads.frag; RGBA32UI, (W+2) x (H+2)): one fetch
//        gives the four integral values around a corner, which cuts the
//        fetches fourfold; 2-D or, with LINEAR_FETCH, a buffer texture
//        (common/linear_fetch.glsl, included here). u_quads_size: (W+2, H+2).

#include "common/linear_fetch.glsl"
#include "common/sides.glsl"

uniform USAMPLER u_quads;
uniform ivec2 u_quads_size;

// The quad (orientation/quads.frag) at integer corner c: the integral image at
// c, c + (1, 0), c + (0, 1) and c + (1, 1), each coordinate clamped into the
// image.
uvec4 quad_at(ivec2 c) { return FETCH(u_quads, clamp(c, ivec2(-1), u_quads_size - 2) + 1, u_quads_size.x); }

// Mean over a size.x x size.y box at integer corner o shifted by the
// fraction f, from the quads at its corners: lo at o, x at o + (size.x, 0),
// y at o + (0, size.y), hi at o + size. Bilinear in the four aligned boxes
// (shift (p, q) in lane p + 2 q); aligned boxes are clipped to the image,
// those clipped away left out. y = 1 when anything is left.
vec2 mean_of_quads(uvec4 lo, uvec4 x, uvec4 y, uvec4 hi, ivec2 o, ivec2 size, vec2 f) {
  ivec2 last = u_quads_size - 2;  // W, H
  uvec4 sums = hi - y - x + lo;
  ivec2 lo0 = clamp(o, ivec2(0), last), lo1 = clamp(o + 1, ivec2(0), last);
  ivec2 hi0 = clamp(o + size, ivec2(0), last), hi1 = clamp(o + size + 1, ivec2(0), last);
  vec2 w0 = vec2(hi0 - lo0), w1 = vec2(hi1 - lo1);  // clipped sides at shift 0 and 1
  vec4 areas = vec4(w0.x * w0.y, w1.x * w0.y, w0.x * w1.y, w1.x * w1.y);
  vec4 weights = vec4(1.0 - f.x, f.x, 1.0 - f.x, f.x) * vec4(1.0 - f.y, 1.0 - f.y, f.y, f.y) *
                 vec4(greaterThan(areas, vec4(0.0)));
  float total = weights.x + weights.y + weights.z + weights.w;
  // Weighted about the first box left in (src/cpu/descriptor.cpp,
  // box_mean): where the four means are equal (a flat patch) the result is
  // exactly that mean whatever the weights, so differences of box means with
  // different fractions are exactly 0 there, not rounding noise that gives a
  // flat patch an orientation.
  vec4 means = vec4(sums) / max(areas, vec4(1.0));
  float first = weights.x > 0.0 ? means.x : weights.y > 0.0 ? means.y : weights.z > 0.0 ? means.z : means.w;
  float sum = dot(weights, means - first);
  return total > 0.0 ? vec2(first + sum / total, 1.0) : vec2(0.0);
}

vec2 box_mean(ivec2 o, vec2 f, ivec2 size) {
  return mean_of_quads(quad_at(o), quad_at(o + ivec2(size.x, 0)), quad_at(o + ivec2(0, size.y)), quad_at(o + size), o,
                       size, f);
}

// Positions: p is relative to the whole pixel `base` (the keypoint's), and
// the integer corners are offset by it only after the split into whole and
// fraction. Absolute float32 coordinates near 8,000 keep just 10 bits of
// fraction, which put orientations of an 8K-wide image 0.013 degrees RMS
// from the CPU's (0.001 with the split).
//
// h must be even (even_side): the halves' corners are the quads at o + (0 |
// m | h, 0 | m | h), m = h / 2, fetched once for the four halves (8 fetches;
// the centre's is not needed). q[3 j + i] is the quad at o + (i, j) m, f the
// fraction of the box's corner.
struct HaarCorners {
  uvec4 q[9];  // q[4], the centre, is not fetched
  ivec2 o;
  vec2 f;
  int m;
};

HaarCorners haar_corners(ivec2 base, vec2 p, int h) {
  HaarCorners c;
  vec2 e = p - float(h) * 0.5 + 0.5;  // pixel-edge coordinates of the box's corner
  c.o = ivec2(floor(e));
  c.f = e - vec2(c.o);
  c.o += base;
  c.m = h / 2;
  int m = c.m;
  c.q[0] = quad_at(c.o), c.q[1] = quad_at(c.o + ivec2(m, 0)), c.q[2] = quad_at(c.o + ivec2(h, 0));
  c.q[3] = quad_at(c.o + ivec2(0, m)), c.q[5] = quad_at(c.o + ivec2(h, m));
  c.q[6] = quad_at(c.o + ivec2(0, h)), c.q[7] = quad_at(c.o + ivec2(m, h)), c.q[8] = quad_at(c.o + ivec2(h));
  c.q[4] = uvec4(0u);
  return c;
}

vec2 haar(ivec2 base, vec2 p, int h) {
  HaarCorners c = haar_corners(base, p, h);
  ivec2 o = c.o;
  int m = c.m;
  vec2 right = mean_of_quads(c.q[1], c.q[2], c.q[7], c.q[8], o + ivec2(m, 0), ivec2(m, h), c.f);
  vec2 left = mean_of_quads(c.q[0], c.q[1], c.q[6], c.q[7], o, ivec2(m, h), c.f);
  vec2 bottom = mean_of_quads(c.q[3], c.q[5], c.q[6], c.q[8], o + ivec2(0, m), ivec2(h, m), c.f);
  vec2 top = mean_of_quads(c.q[0], c.q[2], c.q[3], c.q[5], o, ivec2(h, m), c.f);
  return vec2(right.y * left.y * (right.x - left.x), bottom.y * top.y * (bottom.x - top.x));
}

// haar() where every box it reads lies inside the image with a pixel to
// spare (each half's four aligned boxes whole): the halves' areas are all m
// h and the bilinear weights sum to 1, so a difference of means is the
// weighted difference of the integer box sums over m h, with no clipping.
// The same value as haar() up to rounding, and exactly 0 on a flat patch.
vec2 haar_inside(ivec2 base, vec2 p, int h) {
  HaarCorners c = haar_corners(base, p, h);
  // right - left and bottom - top of the box sums, per shift (exact: the
  // differences wrap as the integral image does, and fit an int).
  vec4 dx = vec4(ivec4(c.q[8] - c.q[2] + c.q[6] - c.q[0] + 2u * (c.q[1] - c.q[7])));
  vec4 dy = vec4(ivec4(c.q[8] - c.q[6] + c.q[2] - c.q[0] + 2u * (c.q[3] - c.q[5])));
  vec2 f = c.f;
  vec4 w = vec4(1.0 - f.x, f.x, 1.0 - f.x, f.x) * vec4(1.0 - f.y, 1.0 - f.y, f.y, f.y);
  return vec2(dot(w, dx), dot(w, dy)) / float(c.m * h);
}

// The gradient of the image smoothed by a size.x x size.y box, by central
// differences of box means d either side of the real point p
// (src/cpu/descriptor.cpp, box_gradient). A box wholly outside the image
// makes that component 0.
vec2 box_gradient(ivec2 base, vec2 p, ivec2 size, float d) {
  vec2 e = p - vec2(size) * 0.5 + 0.5;  // pixel-edge coordinates of the box's corner
  vec2 g = vec2(0.0);
  for (int axis = 0; axis < 2; ++axis) {
    vec2 shift = axis == 0 ? vec2(d, 0.0) : vec2(0.0, d);
    vec2 ahead = e + shift, behind = e - shift;
    vec2 a = box_mean(base + ivec2(floor(ahead)), ahead - floor(ahead), size);
    vec2 b = box_mean(base + ivec2(floor(behind)), behind - floor(behind), size);
    g[axis] = a.y * b.y * (a.x - b.x);
  }
  return g;
}

// box_gradient() where every box it reads lies inside the image with a
// pixel to spare (cpu::orientation_inside holds for the keypoint, which the
// caller vouches for): the four aligned boxes of each box are whole, of the
// same area, and their bilinear weights sum to 1, so a difference of box
// means is the difference of the weighted box sums over the area. The sums
// are taken relative to one of them (exact integer differences, the
// weights' sum of 1 cancelling it), so that a flat patch gives exactly 0 as
// in box_gradient. The same value as box_gradient() up to rounding, without
// its clipping arithmetic.
vec2 box_gradient_inside(ivec2 base, vec2 p, ivec2 size, float d) {
  vec2 e = p - vec2(size) * 0.5 + 0.5;  // pixel-edge coordinates of the box's corner
  vec2 g = vec2(0.0);
  for (int axis = 0; axis < 2; ++axis) {
    vec2 shift = axis == 0 ? vec2(d, 0.0) : vec2(0.0, d);
    vec2 ahead = e + shift, behind = e - shift;
    vec2 fa = ahead - floor(ahead), fb = behind - floor(behind);
    ivec2 oa = base + ivec2(floor(ahead)), ob = base + ivec2(floor(behind));
    // Box sums at the four shifts (shift (p, q) in lane p + 2 q, as the quads).
    uvec4 sa = quad_at(oa + size) - quad_at(oa + ivec2(0, size.y)) - quad_at(oa + ivec2(size.x, 0)) + quad_at(oa);
    uvec4 sb = quad_at(ob + size) - quad_at(ob + ivec2(0, size.y)) - quad_at(ob + ivec2(size.x, 0)) + quad_at(ob);
    vec4 wa = vec4(1.0 - fa.x, fa.x, 1.0 - fa.x, fa.x) * vec4(1.0 - fa.y, 1.0 - fa.y, fa.y, fa.y);
    vec4 wb = vec4(1.0 - fb.x, fb.x, 1.0 - fb.x, fb.x) * vec4(1.0 - fb.y, 1.0 - fb.y, fb.y, fb.y);
    g[axis] = (dot(wa, vec4(ivec4(sa - sa.x))) - dot(wb, vec4(ivec4(sb - sa.x)))) / float(size.x * size.y);
  }
  return g;
}

// The gradient of the image smoothed by the orientation's cross
// (common/sides.glsl, orientation_cross: x long, y short): the mean of its
// two boxes' gradients (src/cpu/descriptor.cpp, cross_gradient).
vec2 cross_gradient(ivec2 base, vec2 p, ivec2 cross, float d) {
  return 0.5 * (box_gradient(base, p, cross, d) + box_gradient(base, p, cross.yx, d));
}

vec2 cross_gradient_inside(ivec2 base, vec2 p, ivec2 cross, float d) {
  return 0.5 * (box_gradient_inside(base, p, cross, d) + box_gradient_inside(base, p, cross.yx, d));
}
