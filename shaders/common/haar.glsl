// common/haar.glsl — Haar wavelet responses and box gradients from the
// integral image, as src/cpu/descriptor.cpp. Haar: side h (even) centred
// exactly on the real point p, dx = mean(right half) - mean(left half),
// dy = mean(bottom) - mean(top).
// A box mean at sub-pixel position interpolates bilinearly between the four
// pixel-aligned boxes around it (the exact area mean of the piecewise-
// constant image); a Haar pair takes 32 integral-image values around its
// corners, in 8 quad fetches. Near the border, aligned boxes are clipped and averaged over what
// is left, and a half wholly outside makes that response 0.
//
// Needs: uniform usampler2D u_quads (RGBA32UI, (W+2) x (H+2);
//        describe/quads.frag): one fetch gives the four integral values
//        around a corner, which cuts the fetches fourfold.

// The quad (describe/quads.frag) at integer corner c: the integral image at
// c, c + (1, 0), c + (0, 1) and c + (1, 1), each coordinate clamped into the
// image.
uvec4 quad_at(ivec2 c) {
  return texelFetch(u_quads, clamp(c, ivec2(-1), textureSize(u_quads, 0) - 2) + 1, 0);
}

// Mean over a size.x x size.y box at integer corner o shifted by the
// fraction f (bilinear in the four aligned boxes, shift (p, q) in lane
// p + 2 q); aligned boxes are clipped to the image, those clipped away left
// out. y = 1 when anything is left.
vec2 box_mean(ivec2 o, vec2 f, ivec2 size) {
  ivec2 last = textureSize(u_quads, 0) - 2;  // W, H
  uvec4 sums = quad_at(o + size) - quad_at(o + ivec2(0, size.y)) - quad_at(o + ivec2(size.x, 0)) + quad_at(o);
  ivec2 lo0 = clamp(o, ivec2(0), last), lo1 = clamp(o + 1, ivec2(0), last);
  ivec2 hi0 = clamp(o + size, ivec2(0), last), hi1 = clamp(o + size + 1, ivec2(0), last);
  vec2 w0 = vec2(hi0 - lo0), w1 = vec2(hi1 - lo1);  // clipped sides at shift 0 and 1
  vec4 areas = vec4(w0.x * w0.y, w1.x * w0.y, w0.x * w1.y, w1.x * w1.y);
  vec4 weights = vec4(1.0 - f.x, f.x, 1.0 - f.x, f.x) * vec4(1.0 - f.y, 1.0 - f.y, f.y, f.y) *
                 vec4(greaterThan(areas, vec4(0.0)));
  float total = weights.x + weights.y + weights.z + weights.w;
  float sum = dot(weights, vec4(sums) / max(areas, vec4(1.0)));
  return total > 0.0 ? vec2(sum / total, 1.0) : vec2(0.0);
}

// Mean over the box with corners (X[i0], Y[j0]) - (X[i1], Y[j1]) shifted by
// one pixel or none each way, the four shifts interpolated bilinearly by f;
// S holds the integral image at (X[i], Y[j]) in S[6 j + i]. Shifts whose
// box was clipped away are left out; y = 0 when none is left.
vec2 haar_half(uint S[36], int X[6], int Y[6], int i0, int j0, int i1, int j1, vec2 f) {
  float sum = 0.0, weights = 0.0;
  for (int q = 0; q < 2; ++q) {
    for (int p = 0; p < 2; ++p) {
      int area = (X[i1 + p] - X[i0 + p]) * (Y[j1 + q] - Y[j0 + q]);
      float weight = (p == 1 ? f.x : 1.0 - f.x) * (q == 1 ? f.y : 1.0 - f.y) * (area > 0 ? 1.0 : 0.0);
      uint box = S[(j1 + q) * 6 + i1 + p] - S[(j1 + q) * 6 + i0 + p] - S[(j0 + q) * 6 + i1 + p] + S[(j0 + q) * 6 + i0 + p];
      sum += weight * float(box) / float(max(area, 1));
      weights += weight;
    }
  }
  return weights > 0.0 ? vec2(sum / weights, 1.0) : vec2(0.0);
}

// h must be even (even_side): the quads are fetched at 0, h/2 and 2 (h/2).
vec2 haar(vec2 p, int h) {
  vec2 e = p - float(h) * 0.5 + 0.5;  // pixel-edge coordinates of the box's corner
  ivec2 o = ivec2(floor(e));
  vec2 f = e - vec2(o);
  int m = h / 2;
  // One path for every point (llvmpipe runs both sides of a branch): the
  // integral image at the corners o + (c[i], c[j]), c = 0, 1, m, m+1, h, h+1,
  // clamped into the image, which clips the boxes that cross its border.
  ivec2 size = textureSize(u_quads, 0) - 2;  // W, H
  int c[6] = int[6](0, 1, m, m + 1, h, h + 1);
  int X[6], Y[6];
  for (int i = 0; i < 6; ++i) {
    X[i] = clamp(o.x + c[i], 0, size.x);
    Y[i] = clamp(o.y + c[i], 0, size.y);
  }
  // The quads at corners (0|m|h, 0|m|h) hold them in pairs of pairs.
  uint S[36];
  for (int J = 0; J < 3; ++J) {
    for (int I = 0; I < 3; ++I) {
      bool centre = I == 1 && J == 1;  // no half has a corner there
      uvec4 quad = centre ? uvec4(0u) : quad_at(o + ivec2(I, J) * m);
      S[12 * J + 2 * I] = quad.x;
      S[12 * J + 2 * I + 1] = quad.y;
      S[12 * J + 6 + 2 * I] = quad.z;
      S[12 * J + 6 + 2 * I + 1] = quad.w;
    }
  }
  vec2 right = haar_half(S, X, Y, 2, 0, 4, 4, f);
  vec2 left = haar_half(S, X, Y, 0, 0, 2, 4, f);
  vec2 bottom = haar_half(S, X, Y, 0, 2, 4, 4, f);
  vec2 top = haar_half(S, X, Y, 0, 0, 4, 2, f);
  return vec2(right.y * left.y * (right.x - left.x), bottom.y * top.y * (bottom.x - top.x));
}

// The gradient of the image smoothed by an h x h box, by central differences
// of box means d either side of the real point p (src/cpu/descriptor.cpp,
// box_gradient). A box wholly outside the image makes that component 0.
vec2 box_gradient(vec2 p, int h, float d) {
  vec2 e = p - float(h) * 0.5 + 0.5;  // pixel-edge coordinates of the box's corner
  ivec2 size = ivec2(h);
  vec2 g = vec2(0.0);
  for (int axis = 0; axis < 2; ++axis) {
    vec2 shift = axis == 0 ? vec2(d, 0.0) : vec2(0.0, d);
    vec2 ahead = e + shift, behind = e - shift;
    vec2 a = box_mean(ivec2(floor(ahead)), ahead - floor(ahead), size);
    vec2 b = box_mean(ivec2(floor(behind)), behind - floor(behind), size);
    g[axis] = a.y * b.y * (a.x - b.x);
  }
  return g;
}

// Even side nearest to `length`, at least 2.
int even_side(float length) { return max(2, 2 * int(floor(length * 0.5 + 0.5))); }
