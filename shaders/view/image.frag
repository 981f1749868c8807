#version 330 core
// view/image.frag — the grey image, scaled to fit the view and centred
// (nearest sampling), on a dark background.
//
// Input:    u_image   the R8 image
// Uniforms: u_offset, u_scale  view pixel = u_offset + u_scale * image pixel
// Output:   RGBA8 colour of the view pixel
// Viewport: the view (texel row 0 = top of the picture).
#include "common/precision.glsl"

uniform sampler2D u_image;
uniform vec2 u_offset;
uniform float u_scale;

layout(location = 0) out vec4 o_colour;

void main() {
  vec2 p = (gl_FragCoord.xy - 0.5 - u_offset) / u_scale;  // image pixel coordinates
  ivec2 q = ivec2(floor(p + 0.5));
  if (any(lessThan(q, ivec2(0))) || any(greaterThanEqual(q, textureSize(u_image, 0)))) {
    o_colour = vec4(0.08, 0.08, 0.09, 1.0);
    return;
  }
  float v = texelFetch(u_image, q, 0).r;
  o_colour = vec4(v, v, v, 1.0);
}
