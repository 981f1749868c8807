#version 330 core
// sift/downsample.frag — the next octave's first image (docs/notes/sift.md,
// Scale space): every second pixel from (0, 0) of level s of the octave
// before, ceil(W / 2) x ceil(H / 2) pixels.
//
// Both images are packed (sift/packed.glsl): output pixels 4 x .. 4 x + 3
// are source pixels 8 x, 8 x + 2 (texel 2 x) and 8 x + 4, 8 x + 6 (texel
// 2 x + 1), so a fragment reads two texels.
//
// Input:    u_source       the packed Gaussian atlas (RGBA32F)
// Uniform:  u_source_rect  x, y (texels), width, height (pixels) of level s in it
// Output:   RGBA32F pixels 4 x .. 4 x + 3 of the row, into the scratch as
//           blur.frag's rows pass packs them (the components past the row's
//           last pixel repeat it)
// Viewport: ceil(ceil(width / 2) / 4) x ceil(height / 2), at the scratch's origin.
#include "common/precision.glsl"
#include "sift/packed.glsl"

uniform sampler2D u_source;
uniform ivec4 u_source_rect;

layout(location = 0) out vec4 o_value;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 last = u_source_rect.zw - 1;
  int y = 2 * p.y;  // <= last.y, as p.y < ceil(height / 2)
  int last_texel = last.x >> 2;
  vec4 a = texelFetch(u_source, u_source_rect.xy + ivec2(min(2 * p.x, last_texel), y), 0);
  vec4 b = texelFetch(u_source, u_source_rect.xy + ivec2(min(2 * p.x + 1, last_texel), y), 0);
  o_value = replicate_last(vec4(a.x, a.z, b.x, b.z), 4 * p.x, (u_source_rect.z + 1) / 2 - 1);
}
