#version 330 core
// sift/dog.frag — one octave's differences of Gaussians (docs/notes/sift.md,
// Scale space): D_i = L_{i+1} - L_i, i = 0 .. s + 1, into the DoG atlas
// (src/sift/layout.hpp: image i of the octave in column i % 2, row i / 2 of
// its band). One draw per octave covers its band; the cell past the last
// image, where s + 2 is odd, gets 0.
//
// Input:    u_gaussian         R32F Gaussian atlas
// Uniforms: u_gaussian_rects[] the octave's Gaussian images (x, y, w, h)
//           u_top              the band's first row in the DoG atlas
//           u_size             the octave's image size
//           u_images           s + 2
// Defines:  IMAGES             s + 3, the length of u_gaussian_rects
// Output:   R32F
// Viewport: the band, 2 W x ceil((s + 2) / 2) H, at (0, u_top).
#include "common/precision.glsl"

uniform sampler2D u_gaussian;
uniform ivec4 u_gaussian_rects[IMAGES];
uniform int u_top;
uniform ivec2 u_size;
uniform int u_images;

layout(location = 0) out float o_value;

void main() {
  ivec2 f = ivec2(gl_FragCoord.xy) - ivec2(0, u_top);
  ivec2 cell = f / u_size;
  int i = min(cell.y * 2 + cell.x, u_images - 1);
  ivec2 p = f - cell * u_size;
  float d = texelFetch(u_gaussian, u_gaussian_rects[i + 1].xy + p, 0).r -
            texelFetch(u_gaussian, u_gaussian_rects[i].xy + p, 0).r;
  o_value = cell.y * 2 + cell.x < u_images ? d : 0.0;
}
