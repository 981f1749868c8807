#version 330 core
// orientation/best.frag — each keypoint's orientation: its largest
// candidate window (the first on ties) recentred on its own sum, every
// second step leaping to the fixed point that Aitken's delta-squared rule
// predicts from the last two moves (if less than u_leap away; u_leap towards
// it if it lies farther ahead), until a sum's direction moves by less than
// u_settled or after u_max_sums sums; the angle is the last sum's direction
// (src/cpu/descriptor.cpp, refine). u_settled
// and u_leap are in radians. The leaps about halve the most sums a group of
// neighbouring keypoints needs, and a SIMD group of fragments runs as many
// as its slowest keypoint needs.
//
// With SECOND, also the second orientation (cpu::orientation, second_ratio):
// the largest local maximum of the candidates other than the best one, if its
// |sum| is at least u_second_ratio times the best's, recentred the same way,
// and kept if it settles more than u_separation from the first.
//
// Defines:  SAMPLE_TILE (orient_samples.frag), PER_FRAGMENT (orient_windows.frag);
//           SECOND
// Inputs:   u_windows     orient_windows.frag output (u_candidates / PER_FRAGMENT-texel
//                         blocks: the best of each PER_FRAGMENT candidates); with SECOND
//                         also u_peaks, u_next_peaks (its locations 1 and 2)
//           u_samples     orient_samples.frag output (a SAMPLE_TILE tile per keypoint), 2-D or its
//                         buffer copy (common/linear_fetch.glsl)
// Uniforms: u_first, u_count  the chunk: blocks hold keypoints u_first ..
//                       u_first + u_count - 1
//           u_candidates, u_max_sums, u_settled, u_leap; with SECOND
//           u_second_ratio, u_separation (degrees)
// Output:   R32F angle in degrees, counter-clockwise on screen, [0, 360);
//           one texel per keypoint of the whole list (texel u_first + k).
//           With SECOND, location 1: the second angle, or -1 for none.
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
#ifdef SECOND
uniform sampler2D u_peaks;
uniform sampler2D u_next_peaks;
uniform float u_second_ratio;
uniform float u_separation;
#endif

const float kTwoPi = 6.28318530717958647692;

layout(location = 0) out float o_angle;
#ifdef SECOND
layout(location = 1) out float o_second;
#endif

#include "orientation/window.glsl"

// The window of the samples at `origin` (samples_origin) recentred from
// image-frame direction `angle` until it settles; returns the last sum (0 if
// a sum is 0).
vec2 refine(int origin, float angle) {
  float previous_move = 0.0;
  vec2 sum = vec2(0.0);
  for (int i = 0; i < u_max_sums; ++i) {
    sum = window_sum(origin, 2.0 * vec2(cos(angle), sin(angle)));
    if (sum == vec2(0.0)) break;
    float next = atan(sum.y, sum.x);
    float move = next - angle;
    move -= kTwoPi * round(move / kTwoPi);
    if (abs(move) < u_settled) break;
    angle = next;
    // Every second step: Aitken's leap to the fixed point when shorter than
    // u_leap, else u_leap on while the moves keep one direction (cpu refine).
    float change = move - previous_move;
    if (i % 2 == 1) {
      if (move * move < u_leap * abs(change)) {
        angle -= move * move / change;
      } else if (move * previous_move > 0.0) {
        angle += sign(move) * u_leap;
      }
    }
    previous_move = move;
  }
  return sum;
}

// The image-frame direction of a sum, 0 for a zero sum (as the CPU's atan2).
float direction(vec2 sum) { return sum == vec2(0.0) ? 0.0 : atan(sum.y, sum.x); }

// As KeyPoint::angle: on screen y points down, so counter-clockwise is minus
// the image-frame angle; degrees in [0, 360).
float screen_degrees(float image_frame) {
  float ccw = -degrees(image_frame);
  if (ccw <= 0.0) ccw += 360.0;  // also -0, as the CPU
  return ccw >= 360.0 ? 0.0 : ccw;
}

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x - u_first;
  if (k < 0 || k >= u_count) discard;  // another chunk's keypoint
  o_angle = 0.0;
#ifdef SECOND
  o_second = -1.0;
#endif
  vec4 best = vec4(0.0, 0.0, -1.0, -1.0);
  int groups = u_candidates / PER_FRAGMENT;
  for (int g = 0; g < groups; ++g) {
    vec4 window = texelFetch(u_windows, texel_of(k * groups + g), 0);
    if (window.z > best.z) best = window;
  }
  if (best.xy == vec2(0.0)) return;  // no gradient at all: angle 0
  float first = direction(refine(samples_origin(k), atan(best.y, best.x)));
  o_angle = screen_degrees(first);
#ifdef SECOND
  // The largest local maximum but the best candidate: it is among the two
  // largest of its group.
  vec4 seed = vec4(0.0, 0.0, -1.0, -1.0);
  for (int g = 0; g < groups; ++g) {
    vec4 peak = texelFetch(u_peaks, texel_of(k * groups + g), 0);
    vec4 next_peak = texelFetch(u_next_peaks, texel_of(k * groups + g), 0);
    if (peak.w >= 0.0 && peak.w != best.w && peak.z > seed.z) seed = peak;
    if (next_peak.w >= 0.0 && next_peak.w != best.w && next_peak.z > seed.z) seed = next_peak;
  }
  // |seed| >= ratio |best|, compared squared as the CPU.
  if (seed.w < 0.0 || seed.z < u_second_ratio * u_second_ratio * best.z) return;
  vec2 second_sum = refine(samples_origin(k), atan(seed.y, seed.x));
  if (second_sum == vec2(0.0)) return;  // no direction to give
  float second = direction(second_sum);
  float apart = second - first;
  apart -= kTwoPi * round(apart / kTwoPi);
  if (abs(apart) > radians(u_separation)) o_second = screen_degrees(second);
#endif
}
