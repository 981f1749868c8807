#version 330 core
// describe/orient_best.frag — each keypoint's orientation: its largest
// candidate window (the first on ties) recentred u_steps times on its own
// sum; the angle is the last sum's direction (src/cpu/descriptor.hpp).
//
// Inputs:   u_windows     orient_windows.frag output (u_candidates-texel blocks)
//           u_samples     orient_samples.frag output (128-texel blocks)
// Uniforms: u_first, u_count  the chunk: blocks hold keypoints u_first ..
//                       u_first + u_count - 1
//           u_candidates, u_steps
// Output:   R32F angle in degrees, counter-clockwise on screen, [0, 360);
//           one texel per keypoint of the whole list (texel u_first + k).
// Viewport: the rows of the angle texture that hold the chunk.
#include "common/precision.glsl"

uniform sampler2D u_windows;
uniform sampler2D u_samples;
uniform int u_count;
uniform int u_first;
uniform int u_candidates;
uniform int u_steps;

layout(location = 0) out float o_angle;

#include "common/blocks.glsl"
#include "describe/orient_window.glsl"

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x - u_first;
  if (k < 0 || k >= u_count) discard;  // another chunk's keypoint
  o_angle = 0.0;
  vec3 best = vec3(0.0, 0.0, -1.0);
  for (int c = 0; c < u_candidates; ++c) {
    vec3 window = texelFetch(u_windows, texel_of(k * u_candidates + c), 0).xyz;
    if (window.z > best.z) best = window;
  }
  vec2 sum = best.xy;
  if (sum == vec2(0.0)) return;  // no gradient at all: angle 0
  sum = window_sum(k * 128, normalize(sum));
  for (int step = 0; step < u_steps && sum != vec2(0.0); ++step) sum = window_sum(k * 128, normalize(sum));
  if (sum == vec2(0.0)) return;
  // On screen y points down: counter-clockwise is minus the image-frame angle.
  float ccw = -degrees(atan(sum.y, sum.x));
  if (ccw < 0.0) ccw += 360.0;
  o_angle = ccw >= 360.0 ? 0.0 : ccw;
}
