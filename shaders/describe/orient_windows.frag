#version 330 core
// describe/orient_windows.frag — the vector sum of keypoint k's samples in
// the window of pi/3 that starts at sample w's angle (every set of samples a
// sliding window can hold is one of these, so the best of them is the exact
// maximum; src/cpu/descriptor.hpp).
//
// Input:    u_samples  orient_samples.frag output (128-texel blocks)
// Uniform:  u_count    keypoints in the chunk (block k is its k-th keypoint)
// Output:   RGBA32F (sum x, sum y, |sum|^2, 0), in the same 128-texel blocks
// Viewport: ceil(count * 128 / 1024) rows of 1024.
#include "common/precision.glsl"

uniform sampler2D u_samples;
uniform int u_count;  // keypoints in this chunk

layout(location = 0) out vec4 o_window;

#include "common/blocks.glsl"

const float kTwoPi = 6.28318530717958647692;
const float kWindow = 1.04719755119659774615;  // pi / 3

void main() {
  ivec2 kw = block_of(ivec2(gl_FragCoord.xy), 128);
  o_window = vec4(0.0);
  if (kw.x >= u_count || kw.y >= 113) return;
  int base = kw.x * 128;
  float start = texelFetch(u_samples, texel_of(base + kw.y), 0).z;
  vec2 sum = vec2(0.0);
  for (int j = 0; j < 113; ++j) {
    vec4 sample_j = texelFetch(u_samples, texel_of(base + j), 0);
    float d = sample_j.z - start;
    if (d < 0.0) d += kTwoPi;
    if (d < kWindow) sum += sample_j.xy;
  }
  o_window = vec4(sum, dot(sum, sum), 0.0);
}
