// sift/orientation_gradient.glsl — what SIFT's orientation and descriptor
// passes read: the Gaussian images in their packed atlas (src/sift/layout.hpp),
// a list entry's octave and level, the gradient of docs/notes/sift.md
// (Orientation, also the descriptor's), and std::round's rounding.
//
// Defines:  MAX_OCTAVES (size of u_octaves)
// Inputs:   u_gaussian  the Gaussian atlas (packed: sift/packed.glsl)
//           u_octaves   per octave position k: (x, y) of its image 0 in the
//                       atlas (pixels), its width and height; image i of the
//                       octave lies (i % 2) widths (rounded up to 4 pixels)
//                       right of and (i / 2) heights below image 0
//                       (sift::atlas_layout)
//           u_points    list entries (x, y, sigma, D^ or angle), octave pixels
//           u_scales    list entries (k, layer, offset_s, 0)

#include "sift/packed.glsl"

uniform sampler2D u_gaussian;
uniform ivec4 u_octaves[MAX_OCTAVES];
uniform sampler2D u_points;
uniform sampler2D u_scales;

// A list entry's Gaussian image: atlas origin (xy) and size (zw) of level
// `layer` of octave position k.
struct GaussianImage {
  ivec2 origin;
  ivec2 size;
};

GaussianImage entry_image(vec4 scales) {
  int k = int(scales.x), level = int(scales.y);
  ivec4 octave = u_octaves[k];
  GaussianImage image;
  image.size = octave.zw;
  // Columns of images start at texels: the width rounded up to 4 pixels.
  image.origin = octave.xy + ivec2(level % 2 * ((octave.z + 3) & ~3), level / 2 * octave.w);
  return image;
}

float gaussian_at(GaussianImage image, int px, int py) {
  return packed_pixel(u_gaussian, image.origin, ivec2(px, py));
}

// Pixels 4 t .. 4 t + 3 of row py (texel t of the row; for t = -1, or past
// the row's end, another image's texel or the atlas's edge: values for
// pixels outside the image, which callers do not use).
vec4 gaussian_texel(GaussianImage image, int t, int py) {
  int x = clamp((image.origin.x >> 2) + t, 0, textureSize(u_gaussian, 0).x - 1);
  return texelFetch(u_gaussian, ivec2(x, image.origin.y + py), 0);
}

// (dx, dy) at pixel (px, py), 1 <= px <= W - 2, 1 <= py <= H - 2: central
// differences without the 1/2, dy upwards so that angles turn
// counter-clockwise as seen on screen.
vec2 gradient_at(GaussianImage image, int px, int py) {
  float dx = gaussian_at(image, px + 1, py) - gaussian_at(image, px - 1, py);
  float dy = gaussian_at(image, px, py - 1) - gaussian_at(image, px, py + 1);
  return vec2(dx, dy);
}

// std::round: to the nearest integer, halves away from zero (GLSL's round()
// leaves halves to the implementation). Exact: a - floor(a) is.
float round_half_away(float a) {
  float m = abs(a), f = floor(m);
  return sign(a) * (m - f >= 0.5 ? f + 1.0 : f);
}
