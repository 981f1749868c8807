#version 330 core
// sift/downsample.frag — the next octave's first image (docs/notes/sift.md,
// Scale space): every second pixel from (0, 0) of level s of the octave
// before, ceil(W / 2) x ceil(H / 2) pixels.
//
// Input:    u_source       R32F Gaussian atlas
// Uniform:  u_source_rect  x, y, width, height of level s in it
// Output:   R32F source(2 p)
// Viewport: ceil(width / 2) x ceil(height / 2), at the target's origin.
#include "common/precision.glsl"

uniform sampler2D u_source;
uniform ivec4 u_source_rect;

layout(location = 0) out float o_value;

void main() { o_value = texelFetch(u_source, u_source_rect.xy + 2 * ivec2(gl_FragCoord.xy), 0).r; }
