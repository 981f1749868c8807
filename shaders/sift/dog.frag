#version 330 core
// sift/dog.frag — one difference of Gaussians (docs/notes/sift.md, Scale
// space): D_i = L_{i+1} - L_i into its cell of the DoG atlas, both atlases
// packed (sift/packed.glsl): four pixels a fragment. (The components past a
// row's last pixel are the differences of the last pixels: they repeat it.)
//
// One draw per image: one draw per octave over its band, the images'
// rectangles in a uniform array indexed per fragment, took llvmpipe 84 ms
// for graf1 (800 x 640 doubled, GL timer) against 15 ms.
//
// Input:    u_gaussian  the packed Gaussian atlas (RGBA32F)
// Uniforms: u_lower, u_upper  where L_i and L_{i+1} start in it (texels)
//           u_origin          where D_i starts in the DoG atlas (texels)
// Output:   RGBA32F, pixels 4 x .. 4 x + 3 of the row
// Viewport: ceil(width / 4) x height of the octave's images, at u_origin.
#include "common/precision.glsl"

uniform sampler2D u_gaussian;
uniform ivec2 u_lower;
uniform ivec2 u_upper;
uniform ivec2 u_origin;

layout(location = 0) out vec4 o_value;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  o_value = texelFetch(u_gaussian, u_upper + p, 0) - texelFetch(u_gaussian, u_lower + p, 0);
}
