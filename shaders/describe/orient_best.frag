#version 330 core
// describe/orient_best.frag — each keypoint's orientation: the direction of
// its largest window sum (the first one on ties, as the CPU reference).
//
// Input:    u_windows  orient_windows.frag output (128-texel blocks)
// Uniforms: u_first, u_count  the chunk: window blocks hold keypoints
//                       u_first .. u_first + u_count - 1
// Output:   R32F angle in degrees, counter-clockwise on screen, [0, 360);
//           one texel per keypoint of the whole list (texel u_first + k).
// Viewport: the rows of the angle texture that hold the chunk.
#include "common/precision.glsl"

uniform sampler2D u_windows;
uniform int u_count;
uniform int u_first;

layout(location = 0) out float o_angle;

#include "common/blocks.glsl"

void main() {
  int k = block_of(ivec2(gl_FragCoord.xy), 1).x - u_first;
  if (k < 0 || k >= u_count) discard;  // another chunk's keypoint
  o_angle = 0.0;
  vec3 best = vec3(0.0, 0.0, -1.0);
  for (int w = 0; w < 113; ++w) {
    vec3 window = texelFetch(u_windows, texel_of(k * 128 + w), 0).xyz;
    if (window.z > best.z) best = window;
  }
  if (best.x == 0.0 && best.y == 0.0) return;  // no gradient at all: angle 0
  // On screen y points down: counter-clockwise is minus the image-frame angle.
  float ccw = -degrees(atan(best.y, best.x));
  if (ccw < 0.0) ccw += 360.0;
  o_angle = ccw >= 360.0 ? 0.0 : ccw;
}
