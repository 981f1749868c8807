#version 330 core
// select/choose.frag — after a histogram round, the digit of the N-th
// strongest keypoint: walk the bins from the highest down until the running
// count reaches the number still wanted.
//
// Inputs:   u_histogram  counts per digit (R32F 64x64)
//           u_state      state after the previous round (RGBA32UI 1x1); unused
//                        in the first round
// Uniforms: u_first, u_wanted   first round: N, the number to keep
//           u_shift, u_digit_bits
// Output:   RGBA32UI state: x = prefix with this digit set, y = how many of the
//           keypoints matching the prefix are still wanted, z = 1 when there
//           are fewer keypoints than wanted (keep them all: prefix 0).
//           After the last round, x is the bit pattern of the N-th largest
//           response: keeping responses >= x keeps the N strongest plus any
//           exact ties with the N-th.
// Viewport: 1 x 1.
#include "common/precision.glsl"

uniform sampler2D u_histogram;
uniform usampler2D u_state;
uniform int u_first;
uniform uint u_wanted;
uniform int u_shift;
uniform int u_digit_bits;

layout(location = 0) out uvec4 o_state;

void main() {
  uvec4 state = u_first != 0 ? uvec4(0u, u_wanted, 0u, 0u) : texelFetch(u_state, ivec2(0), 0);
  if (state.z != 0u) {
    o_state = state;
    return;
  }
  uint seen = 0u;
  for (int d = (1 << u_digit_bits) - 1; d >= 0; --d) {
    uint count = uint(texelFetch(u_histogram, ivec2(d % 64, d / 64), 0).r + 0.5);
    if (seen + count >= state.y) {
      o_state = uvec4(state.x | (uint(d) << uint(u_shift)), state.y - seen, 0u, 0u);
      return;
    }
    seen += count;
  }
  o_state = uvec4(0u, state.y, 1u, 0u);  // fewer than wanted: keep all
}
