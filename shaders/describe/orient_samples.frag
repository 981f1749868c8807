#version 330 core
// describe/orient_samples.frag — the samples of the orientation assignment:
// for keypoint k and lattice point i (i^2 + j^2 <= 36, 113 of them,
// u_lattice), the box gradient (box side ~2s, differences s/2 either side) at
// (x, y) + s (i, j), weighted by a Gaussian of sigma 2.5 s
// (src/cpu/descriptor.hpp).
//
// Inputs:   u_list      point list (RGBA32F: x, y, size * laplacian, response)
//           u_quads     the integral image as quads (RGBA32UI, describe/quads.frag)
// Uniforms: u_first, u_count  the chunk of the list: keypoints u_first ..
//                       u_first + u_count - 1 (block k holds u_first + k)
//           u_lattice[113]
// Output:   RGBA32F (weighted gx, weighted gy, unit direction x, y; the
//           direction is (0, 0) for a zero gradient); blocks of 128 texels
//           per keypoint, texels 113..127 zero.
// Viewport: ceil(count * 128 / 1024) rows of 1024.
#include "common/precision.glsl"

uniform sampler2D u_list;
uniform usampler2D u_quads;
uniform int u_count;  // keypoints in this chunk
uniform int u_first;  // list index of the chunk's first keypoint
uniform ivec2 u_lattice[113];

layout(location = 0) out vec4 o_sample;

#include "common/blocks.glsl"
#include "common/haar.glsl"

void main() {
  ivec2 ki = block_of(ivec2(gl_FragCoord.xy), 128);
  o_sample = vec4(0.0);
  if (ki.x >= u_count || ki.y >= 113) return;
  vec4 k = texelFetch(u_list, texel_of(u_first + ki.x), 0);
  float s = 1.2 * abs(k.z) / 9.0;
  ivec2 ij = u_lattice[ki.y];
  vec2 g = box_gradient(k.xy + s * vec2(ij), even_side(2.0 * s), 0.5 * s);
  float n = length(g);
  vec2 weighted = g * exp(-float(ij.x * ij.x + ij.y * ij.y) / (2.0 * 2.5 * 2.5));
  o_sample = vec4(weighted, n > 0.0 ? g / n : vec2(0.0));
}
