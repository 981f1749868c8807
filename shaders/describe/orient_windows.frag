#version 330 core
// describe/orient_windows.frag — the window sums of the orientation
// assignment: for keypoint k and candidate direction c (angle 2 pi c /
// u_candidates), the sum of k's samples weighted by max(0, 2 cos(delta) -
// 1)^2, delta the sample's angle to the direction (src/cpu/descriptor.hpp).
//
// Input:    u_samples     orient_samples.frag output (128-texel blocks)
// Uniforms: u_count       keypoints in the chunk (block k is its k-th keypoint)
//           u_candidates  directions per keypoint (divides 1024)
// Output:   RGBA32F (sum x, sum y, |sum|^2, 0), blocks of u_candidates texels
// Viewport: ceil(count * u_candidates / 1024) rows of 1024.
#include "common/precision.glsl"

uniform sampler2D u_samples;
uniform int u_count;
uniform int u_candidates;

layout(location = 0) out vec4 o_window;

#include "common/blocks.glsl"
#include "describe/orient_window.glsl"

const float kTwoPi = 6.28318530717958647692;

void main() {
  ivec2 kc = block_of(ivec2(gl_FragCoord.xy), u_candidates);
  o_window = vec4(0.0);
  if (kc.x >= u_count) return;
  float phi = kTwoPi * float(kc.y) / float(u_candidates);
  vec2 sum = window_sum(kc.x * 128, vec2(cos(phi), sin(phi)));
  o_window = vec4(sum, dot(sum, sum), 0.0);
}
