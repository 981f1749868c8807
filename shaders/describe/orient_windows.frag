#version 330 core
// describe/orient_windows.frag — the window sums of the orientation
// assignment: for keypoint k and candidate direction c (angle 2 pi c /
// u_candidates), the sum of k's samples weighted by max(0, 2 cos(delta) -
// 1)^2, delta the sample's angle to the direction (src/cpu/descriptor.hpp).
// A fragment takes PER_FRAGMENT neighbouring candidates at once, 4 to a vec4,
// so each sample is fetched once for all of them, and keeps the largest (the
// first on ties).
//
// Defines:  SAMPLES, SAMPLE_BLOCK (orient_samples.frag); PER_FRAGMENT
//           candidates per fragment, a multiple of 4
// Input:    u_samples     orient_samples.frag output (SAMPLE_BLOCK-texel blocks), 2-D or its
//                         buffer copy (common/linear_fetch.glsl)
// Uniforms: u_count       keypoints in the chunk (block k is its k-th keypoint)
//           u_candidates  directions per keypoint (a multiple of PER_FRAGMENT;
//                         u_candidates / PER_FRAGMENT divides 1024)
// Output:   RGBA32F (sum x, sum y, |sum|^2, 0) of the largest window among
//           candidates PER_FRAGMENT g .. PER_FRAGMENT (g + 1) - 1, blocks of
//           u_candidates / PER_FRAGMENT texels
// Viewport: ceil(count * u_candidates / PER_FRAGMENT / 1024) rows of 1024.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "common/linear_fetch.glsl"

uniform SAMPLER u_samples;
uniform int u_count;
uniform int u_candidates;

layout(location = 0) out vec4 o_window;

const float kTwoPi = 6.28318530717958647692;

#define VECTORS (PER_FRAGMENT / 4)

void main() {
  ivec2 kg = block_of(ivec2(gl_FragCoord.xy), u_candidates / PER_FRAGMENT);
  o_window = vec4(0.0);
  if (kg.x >= u_count) return;
  // Candidate PER_FRAGMENT g + 4 v + i in lane i of the v-th vectors.
  vec4 ux[VECTORS], uy[VECTORS], sx[VECTORS], sy[VECTORS];
  for (int v = 0; v < VECTORS; ++v) {
    vec4 phi = kTwoPi * (float(PER_FRAGMENT * kg.y + 4 * v) + vec4(0.0, 1.0, 2.0, 3.0)) / float(u_candidates);
    ux[v] = cos(phi);
    uy[v] = sin(phi);
    sx[v] = vec4(0.0);
    sy[v] = vec4(0.0);
  }
  int base = kg.x * SAMPLE_BLOCK;
  for (int j = 0; j < SAMPLES; ++j) {
    vec4 sample_j = FETCH_INDEX(u_samples, base + j);
    // As window_sum (describe/orient_window.glsl), for 4 directions at once.
    for (int v = 0; v < VECTORS; ++v) {
      vec4 w = max(vec4(0.0), 2.0 * (sample_j.z * ux[v] + sample_j.w * uy[v]) - 1.0);
      w *= w;
      sx[v] += w * sample_j.x;
      sy[v] += w * sample_j.y;
    }
  }
  o_window = vec4(0.0, 0.0, -1.0, 0.0);
  for (int v = 0; v < VECTORS; ++v) {
    vec4 n = sx[v] * sx[v] + sy[v] * sy[v];
    for (int i = 0; i < 4; ++i) {
      if (n[i] > o_window.z) o_window.xyz = vec3(sx[v][i], sy[v][i], n[i]);
    }
  }
}
