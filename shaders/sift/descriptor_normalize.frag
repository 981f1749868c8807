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
// Inputs:   u_cell0 .. u_cell7   descriptor_cells.frag output (descriptor_bins.glsl)
//           u_norms              descriptor_norms.frag output
// Uniforms: u_first, u_count     the chunk: entries u_first .. u_first + u_count - 1
// Output:   RGBA32F, 32 texels per entry of the whole list; an all-zero
//           descriptor stays zero.
// Viewport: the rows that hold the chunk's entries, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "sift/descriptor_bins.glsl"

uniform sampler2D u_norms;
uniform int u_first;
uniform int u_count;

layout(location = 0) out vec4 o_values;

const float kClamp = 0.2;

void main() {
  ivec2 kt = block_of(ivec2(gl_FragCoord.xy), 32);
  int t = kt.x - u_first;  // the entry's tile in the chunk
  o_values = vec4(0.0);
  if (t < 0 || t >= u_count) return;
  vec4 norms = texelFetch(u_norms, texel_of(t), 0);
  if (!(norms.x > 0.0)) return;
  vec4 v = min(bin_values(t, kt.y / 2, kt.y % 2) / norms.x, vec4(kClamp)) / norms.y;
#ifdef ROOT_SIFT
  v = sqrt(v / norms.z);
#endif
  o_values = v;
}
