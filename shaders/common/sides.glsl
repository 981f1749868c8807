// common/sides.glsl — the whole box sides the descriptor passes take for a
// keypoint of scale s (src/cpu/descriptor.cpp: even_side, nearest_side,
// orientation_cross).
#ifndef COMMON_SIDES_GLSL
#define COMMON_SIDES_GLSL

// Even side nearest to `length`, at least 2 (Haar wavelets).
int even_side(float length) { return max(2, 2 * int(floor(length * 0.5 + 0.5))); }
// Side nearest to `length`, at least 2.
int nearest_side(float length) { return max(2, int(floor(length + 0.5))); }

// The whole number nearest h sqrt(k) / 2 for k not a square: (q + 1) / 2
// with q = floor(h sqrt(k)), found in integers (cpu::nearest_root_half).
// k h^2 fits an int for keypoint sizes up to cpu::kMaxKeypointSize.
int nearest_root_half(int h, int k) {
  int n = k * h * h;
  int q = int(sqrt(float(n)));
  q -= q * q > n ? 1 : 0;
  q += (q + 1) * (q + 1) <= n ? 1 : 0;
  return (q + 1) / 2;
}

// The orientation's smoothing cross for scale s (cpu::orientation_cross):
// x = long side, y = short side.
ivec2 orientation_cross(float s) {
  int h = nearest_side(2.0 * s);
  return ivec2(nearest_root_half(h, 6), nearest_root_half(h, 2));
}

#endif
