// common/integral_fetch.glsl — the integral image (R32UI, (W+1) x (H+1)) read
// with coordinates clamped into range. Clamping only matters for samples whose
// filters leave the image: their responses are discarded anyway, but the
// look-ups must stay defined.
//
// Needs: common/linear_fetch.glsl. u_integral_size: (W+1, H+1).
uniform USAMPLER u_integral;
uniform ivec2 u_integral_size;

uint integral_at(int x, int y) {
  return FETCH(u_integral, clamp(ivec2(x, y), ivec2(0), u_integral_size - 1), u_integral_size.x).r;
}
