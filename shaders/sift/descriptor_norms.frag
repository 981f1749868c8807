#version 330 core
// sift/descriptor_norms.frag — what normalising an entry's descriptor needs
// (docs/notes/sift.md, Descriptor): |v|_2 of the raw values, |v'|_2 of v' =
// min(v / |v|_2, 0.2), and |v''|_1 of v'' = v' / |v'|_2 (for RootSIFT). One
// fragment per entry: its 128 values are gathered once, not by each of its
// 32 output texels (descriptor_normalize.frag). Sums run over the values in
// their order (spatial bins row by row, orientations within), as the CPU's
// (which sums in double).
//
// Inputs:   u_cell0 .. u_cell7   descriptor_cells.frag output (descriptor_bins.glsl)
// Uniform:  u_count              entries of the chunk
// Output:   RGBA32F per entry of the chunk (a run of 1): (|v|_2, |v'|_2,
//           |v''|_1, 0), all 0 for an all-zero descriptor (which stays zero).
// Viewport: the rows that hold u_count entries, 1024 wide.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "sift/descriptor_bins.glsl"

uniform int u_count;

layout(location = 0) out vec4 o_norms;

const float kClamp = 0.2;

void main() {
  int t = block_of(ivec2(gl_FragCoord.xy), 1).x;
  o_norms = vec4(0.0);
  if (t >= u_count) return;
  float v[128];
  for (int b = 0; b < 16; ++b) {
    vec4 low = bin_values(t, b, 0), high = bin_values(t, b, 1);
    for (int o = 0; o < 4; ++o) {
      v[b * 8 + o] = low[o];
      v[b * 8 + 4 + o] = high[o];
    }
  }
  float sum = 0.0;
  for (int i = 0; i < 128; ++i) sum += v[i] * v[i];
  float n1 = sqrt(sum);
  if (!(n1 > 0.0)) return;
  sum = 0.0;
  for (int i = 0; i < 128; ++i) {
    float c = min(v[i] / n1, kClamp);
    sum += c * c;
  }
  float n2 = sqrt(sum);
  float l1 = 0.0;
  for (int i = 0; i < 128; ++i) l1 += min(v[i] / n1, kClamp) / n2;
  o_norms = vec4(n1, n2, l1, 0.0);
}
