#version 330 core
// sift/downsample.frag — the next octave's first image (docs/notes/sift.md,
// Scale space): every second pixel from (0, 0) of level s of the octave
// before, ceil(W / 2) x ceil(H / 2) pixels.
//
// Input:    u_source       R32F Gaussian atlas
// Uniform:  u_source_rect  x, y, width, height of level s in it
// Output:   RGBA32F pixels 4 x .. 4 x + 3 of the row, into the scratch as
//           blur.frag's rows pass packs them (the last texel's extra
//           components repeat the last pixel; they are never read)
// Viewport: ceil(ceil(width / 2) / 4) x ceil(height / 2), at the scratch's origin.
#include "common/precision.glsl"

uniform sampler2D u_source;
uniform ivec4 u_source_rect;

layout(location = 0) out vec4 o_value;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 last = u_source_rect.zw - 1;
  vec4 v;
  for (int j = 0; j < 4; ++j) v[j] = texelFetch(u_source, u_source_rect.xy + min(2 * ivec2(4 * p.x + j, p.y), last), 0).r;
  o_value = v;
}
