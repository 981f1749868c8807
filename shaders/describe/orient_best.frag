#version 330 core
// describe/orient_best.frag — each keypoint's orientation: its largest
// candidate window (the first on ties) recentred on its own sum, every
// second step leaping to the fixed point that Aitken's delta-squared rule
// predicts from the last two moves (if less than u_leap away), until a sum's
// direction moves by less than u_settled or after u_max_sums sums; the angle
// is the last sum's direction (src/cpu/descriptor.cpp, refine). u_settled
// and u_leap are in radians. The leaps about halve the most sums a group of
// neighbouring keypoints needs, and a SIMD group of fragments runs as many
// as its slowest keypoint needs.
//
// Defines:  SAMPLES, SAMPLE_BLOCK (orient_samples.frag), PER_FRAGMENT (orient_windows.frag)
// Inputs:   u_windows     orient_windows.frag output (u_candidates / PER_FRAGMENT-texel
//                         blocks: the best of each PER_FRAGMENT candidates)
//           u_samples     orient_samples.frag output (SAMPLE_BLOCK-texel blocks), 2-D or its
//                         buffer copy (common/linear_fetch.glsl)
// Uniforms: u_first, u_count  the chunk: blocks hold keypoints u_first ..
//                       u_first + u_count - 1
//           u_candidates, u_max_sums, u_settled, u_leap
// Output:   R32F angle in degrees, counter-clockwise on screen, [0, 360);
//           one texel per keypoint of the whole list (texel u_first + k).
// Viewport: the rows of the angle texture that hold the chunk.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "common/linear_fetch.glsl"

uniform sampler2D u_windows;
uniform SAMPLER u_samples;
uniform int u_count;
uniform int u_first;
uniform int u_candidates;
uniform int u_max_sums;
uniform float u_settled;
uniform float u_leap;

const float kTwoPi = 6.28318530717958647692;

layout(location = 0) out float o_angle;

#include "describe/orient_window.glsl"

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x - u_first;
  if (k < 0 || k >= u_count) discard;  // another chunk's keypoint
  o_angle = 0.0;
  vec3 best = vec3(0.0, 0.0, -1.0);
  int groups = u_candidates / PER_FRAGMENT;
  for (int g = 0; g < groups; ++g) {
    vec3 window = texelFetch(u_windows, texel_of(k * groups + g), 0).xyz;
    if (window.z > best.z) best = window;
  }
  if (best.xy == vec2(0.0)) return;  // no gradient at all: angle 0
  float angle = atan(best.y, best.x), previous_move = 0.0;
  vec2 sum = vec2(0.0);
  for (int i = 0; i < u_max_sums; ++i) {
    sum = window_sum(k * SAMPLE_BLOCK, vec2(cos(angle), sin(angle)));
    if (sum == vec2(0.0)) return;
    float next = atan(sum.y, sum.x);
    float move = next - angle;
    move -= kTwoPi * round(move / kTwoPi);
    if (abs(move) < u_settled) break;
    angle = next;
    // Every second step: Aitken's leap to the fixed point, when shorter than u_leap.
    float change = move - previous_move;
    if (i % 2 == 1 && move * move < u_leap * abs(change)) angle -= move * move / change;
    previous_move = move;
  }
  // On screen y points down: counter-clockwise is minus the image-frame angle.
  float ccw = -degrees(atan(sum.y, sum.x));
  if (ccw <= 0.0) ccw += 360.0;  // also -0, as the CPU
  o_angle = ccw >= 360.0 ? 0.0 : ccw;
}
