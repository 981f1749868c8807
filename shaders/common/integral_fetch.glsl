// common/integral_fetch.glsl — the integral image (R32UI, (W+1) x (H+1)) read
// with coordinates clamped into range. Clamping only matters for samples whose
// filters leave the image: their responses are discarded anyway, but the
// look-ups must stay defined.

uniform usampler2D u_integral;

uint integral_at(int x, int y) {
  ivec2 last = textureSize(u_integral, 0) - 1;
  return texelFetch(u_integral, clamp(ivec2(x, y), ivec2(0), last), 0).r;
}
