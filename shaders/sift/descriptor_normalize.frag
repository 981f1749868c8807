#version 330 core
// sift/descriptor_normalize.frag — the finished descriptors (docs/notes/sift.md,
// Descriptor): v / |v|_2, clamped at 0.2, divided by the norm of that; with
// ROOT_SIFT then divided by its L1 norm and square-rooted. Written as runs of
// 32 texels per entry (common/blocks.glsl): texel t of entry k holds values
// 4t .. 4t + 3 in the docs' order, (r d + c) n + o, so that a readback is
// float[128] per entry, and the layout the matcher reads (descriptor blocks
// of 32 texels).
//
// Defines:  ROOT_SIFT
// Inputs:   u_low, u_high   descriptor_bins.frag output (a 4 x 4 tile per entry)
//           u_norms         descriptor_norms.frag output
// Uniform:  u_count         entries
// Output:   RGBA32F, 32 texels per entry; an all-zero descriptor stays zero.
// Viewport: ceil(32 count / 1024) rows, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"

uniform sampler2D u_low;
uniform sampler2D u_high;
uniform sampler2D u_norms;
uniform int u_count;

layout(location = 0) out vec4 o_values;

const float kClamp = 0.2;

void main() {
  ivec2 kt = block_of(ivec2(gl_FragCoord.xy), 32);
  o_values = vec4(0.0);
  if (kt.x >= u_count) return;
  vec4 norms = texelFetch(u_norms, texel_of(kt.x), 0);
  if (!(norms.x > 0.0)) return;
  ivec2 own = tile_texel(kt.x, kt.y / 2, 4);
  vec4 raw = kt.y % 2 == 0 ? texelFetch(u_low, own, 0) : texelFetch(u_high, own, 0);
  vec4 v = min(raw / norms.x, vec4(kClamp)) / norms.y;
#ifdef ROOT_SIFT
  v = sqrt(v / norms.z);
#endif
  o_values = v;
}
