#version 330 core
// select/histogram.vert — one round of the radix selection of the N strongest
// keypoints: every atlas texel is a point; a keypoint whose response bits
// above this round's digit equal the prefix chosen so far lands in the
// histogram bin of its digit, every other point is placed outside clip space.
//
// Responses are positive floats, so their bit patterns (floatBitsToUint)
// order as the values do. Rounds take bits 31..20, 19..8, 7..0.
//
// Inputs:   u_atlas    candidate atlas (RGBA32F, response in alpha, 0 = none)
//           u_state    selection state (RGBA32UI 1x1): x = prefix, z = done
// Uniforms: u_first    1 in the first round (no prefix yet; u_state unused)
//           u_shift, u_digit_bits   the digit of this round
// Output:   a point at the centre of the digit's bin of a 64x64 histogram
//           (drawn with additive blending by select/histogram.frag).
#include "common/precision.glsl"

uniform sampler2D u_atlas;
uniform usampler2D u_state;
uniform int u_first;
uniform int u_shift;
uniform int u_digit_bits;

const int kBinsWidth = 64;

void main() {
  gl_Position = vec4(2.0, 2.0, 0.0, 1.0);  // outside clip space: not drawn
  ivec2 size = textureSize(u_atlas, 0);
  ivec2 q = ivec2(gl_VertexID % size.x, gl_VertexID / size.x);
  float response = texelFetch(u_atlas, q, 0).a;
  if (!(response > 0.0)) return;
  uint key = floatBitsToUint(response);
  if (u_first == 0) {
    uvec4 state = texelFetch(u_state, ivec2(0), 0);
    if (state.z != 0u) return;
    uint high = uint(u_shift + u_digit_bits);  // < 32 after the first round
    if ((key >> high) != (state.x >> high)) return;
  }
  int digit = int((key >> uint(u_shift)) & ((1u << uint(u_digit_bits)) - 1u));
  vec2 bin = vec2(float(digit % kBinsWidth), float(digit / kBinsWidth));
  gl_Position = vec4((bin + 0.5) / float(kBinsWidth) * 2.0 - 1.0, 0.0, 1.0);
}
