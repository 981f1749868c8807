#version 330 core
// matcher/pick.frag — copies entries u_order[0], u_order[1], ... of a matcher
// texture (descriptors: u_texels texels per entry; signs: one) into a compact
// texture of the same layout, entry k's texel t at linear index
// k * u_texels + t (common/blocks.glsl). The mutual check uses it to match
// back only the trains that some query kept.
//
// Inputs:   u_source  RGBA32F descriptors or R32F signs
//           u_order   R32F source entry of each output entry
// Uniforms: u_count (entries), u_texels
// Output:   the source texel, 0 past the last entry
// Viewport: 1024 x ceil(u_count * u_texels / 1024).
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_source;
uniform sampler2D u_order;
uniform int u_count;
uniform int u_texels;

layout(location = 0) out vec4 o_value;

void main() {
  ivec2 kt = block_of(ivec2(gl_FragCoord.xy), u_texels);
  o_value = vec4(0.0);
  if (kt.x >= u_count) return;
  int source = int(texelFetch(u_order, texel_of(kt.x), 0).r);
  o_value = texelFetch(u_source, texel_of(source * u_texels + kt.y), 0);
}
