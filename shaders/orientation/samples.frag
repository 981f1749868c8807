#version 330 core
// orientation/samples.frag — the samples of the orientation assignment:
// for keypoint k and lattice point (i, j) (SAMPLES of them, u_lattice), the
// gradient smoothed by the orientation's cross (two boxes, sides about
// 2.45s and 1.41s; differences u_offset s either side) at (x, y) + u_step s
// (i, j), weighted by a Gaussian of sigma 3.75s, read with the point
// (src/cpu/descriptor.hpp).
//
// Defines:  SAMPLES       lattice points (cpu::kOrientationSamples)
//           SAMPLE_TEXELS texels that hold them, two to a texel: (SAMPLES + 1) / 2
//           SAMPLE_TILE   ivec2: the tile that holds a keypoint's texels
//                         (common/blocks.glsl), at least SAMPLE_TEXELS
//           INSIDE        every keypoint of the draw has
//                         cpu::orientation_inside, so its box means need no
//                         clipping (cross_gradient_inside: on llvmpipe the
//                         clipping is about a sixth of the pass, and both
//                         sides of a branch would run)
// Inputs:   u_list      point list (RGBA32F: x, y, size * laplacian, response)
//           u_quads     the integral image as quads (common/haar.glsl), and
//                       u_quads_size their size
//           u_lattice   RGBA32F, texel n = lattice point n (i, j) and its
//                       weight (cpu::orientation_weight)
// Uniforms: u_first, u_count  the chunk of the list: keypoints u_first ..
//                       u_first + u_count - 1 (tile k holds u_first + k)
//           u_step, u_offset  lattice spacing and difference offset, in s
// Output:   RGBA32F, two samples to a texel: the weighted gradient of sample
//           2t in xy, of sample 2t + 1 in zw, texel t of the keypoint's tile;
//           the values past the last sample, and the texels past
//           SAMPLE_TEXELS, zero. A sample's direction is its
//           weighted gradient's (the weight is positive), so the passes that
//           read the samples normalise them there rather than fetch it (one
//           fetch for two samples; a fragment computes two, and llvmpipe's
//           cost per fragment is shared).
// Viewport: the rows of tiles that hold the count, 1024 wide.
#include "common/precision.glsl"

uniform sampler2D u_list;
uniform int u_count;  // keypoints in this chunk
uniform int u_first;  // list index of the chunk's first keypoint
uniform sampler2D u_lattice;
uniform float u_step;
uniform float u_offset;

layout(location = 0) out vec4 o_sample;

#include "common/blocks.glsl"
#include "common/haar.glsl"

// The weighted cross gradient at lattice point n of the keypoint at k.xy
// (whole pixel `base`) of scale s and cross `cross` (orientation_cross).
vec2 weighted_sample(vec4 k, ivec2 base, float s, ivec2 cross, int n) {
  vec3 point = texelFetch(u_lattice, ivec2(n, 0), 0).xyz;
  vec2 p = (k.xy - vec2(base)) + (u_step * s) * point.xy;
#ifdef INSIDE
  vec2 g = cross_gradient_inside(base, p, cross, u_offset * s);
#else
  vec2 g = cross_gradient(base, p, cross, u_offset * s);
#endif
  return g * point.z;
}

void main() {
  ivec2 kt = tile_of(ivec2(gl_FragCoord.xy), SAMPLE_TILE);
  o_sample = vec4(0.0);
  if (kt.x >= u_count || kt.y >= SAMPLE_TEXELS) return;
  vec4 k = texelFetch(u_list, texel_of(u_first + kt.x), 0);
  float s = 1.2 * abs(k.z) / 9.0;
  ivec2 base = ivec2(floor(k.xy));
  int n = 2 * kt.y;
  // With an odd count the last texel's second sample repeats the first, and is dropped.
  ivec2 cross = orientation_cross(s);
  vec2 second = weighted_sample(k, base, s, cross, min(n + 1, SAMPLES - 1));
  o_sample = vec4(weighted_sample(k, base, s, cross, n), n + 1 < SAMPLES ? second : vec2(0.0));
}
