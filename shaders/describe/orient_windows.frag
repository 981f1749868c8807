#version 330 core
// describe/orient_windows.frag — the window sums of the orientation
// assignment: for keypoint k and candidate direction c (angle 2 pi c /
// u_candidates), the sum of k's samples weighted by max(0, 2 cos(delta) -
// 1)^2, delta the sample's angle to the direction (src/cpu/descriptor.hpp).
// A fragment takes 8 neighbouring candidates at once, in vec4 lanes, so each
// sample is fetched once for the 8, and keeps the largest (the first on ties).
//
// Defines:  SAMPLES, SAMPLE_BLOCK (orient_samples.frag)
// Input:    u_samples     orient_samples.frag output (SAMPLE_BLOCK-texel blocks), 2-D or its
//                         buffer copy (common/linear_fetch.glsl)
// Uniforms: u_count       keypoints in the chunk (block k is its k-th keypoint)
//           u_candidates  directions per keypoint (a multiple of 8; u_candidates
//                         / 8 divides 1024)
// Output:   RGBA32F (sum x, sum y, |sum|^2, 0) of the largest window among
//           candidates 8 g .. 8 g + 7, blocks of u_candidates / 8 texels
// Viewport: ceil(count * u_candidates / 8 / 1024) rows of 1024.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "common/linear_fetch.glsl"

uniform SAMPLER u_samples;
uniform int u_count;
uniform int u_candidates;

layout(location = 0) out vec4 o_window;


const float kTwoPi = 6.28318530717958647692;

void main() {
  ivec2 kg = block_of(ivec2(gl_FragCoord.xy), u_candidates / 8);
  o_window = vec4(0.0);
  if (kg.x >= u_count) return;
  // Candidates 8 g + (0..3) in the lanes of the *_low vectors, + (4..7) in *_high.
  vec4 phi_low = kTwoPi * (float(8 * kg.y) + vec4(0.0, 1.0, 2.0, 3.0)) / float(u_candidates);
  vec4 phi_high = kTwoPi * (float(8 * kg.y) + vec4(4.0, 5.0, 6.0, 7.0)) / float(u_candidates);
  vec4 ux_low = cos(phi_low), uy_low = sin(phi_low), ux_high = cos(phi_high), uy_high = sin(phi_high);
  vec4 sx_low = vec4(0.0), sy_low = vec4(0.0), sx_high = vec4(0.0), sy_high = vec4(0.0);
  int base = kg.x * SAMPLE_BLOCK;
  for (int j = 0; j < SAMPLES; ++j) {
    vec4 sample_j = FETCH_INDEX(u_samples, base + j);
    // As window_sum (describe/orient_window.glsl), for 4 directions at once.
    vec4 w_low = max(vec4(0.0), 2.0 * (sample_j.z * ux_low + sample_j.w * uy_low) - 1.0);
    vec4 w_high = max(vec4(0.0), 2.0 * (sample_j.z * ux_high + sample_j.w * uy_high) - 1.0);
    w_low *= w_low;
    w_high *= w_high;
    sx_low += w_low * sample_j.x;
    sy_low += w_low * sample_j.y;
    sx_high += w_high * sample_j.x;
    sy_high += w_high * sample_j.y;
  }
  vec4 n_low = sx_low * sx_low + sy_low * sy_low, n_high = sx_high * sx_high + sy_high * sy_high;
  o_window = vec4(sx_low.x, sy_low.x, n_low.x, 0.0);
  for (int i = 1; i < 8; ++i) {
    vec3 window = i < 4 ? vec3(sx_low[i], sy_low[i], n_low[i]) : vec3(sx_high[i - 4], sy_high[i - 4], n_high[i - 4]);
    if (window.z > o_window.z) o_window.xyz = window;
  }
}
