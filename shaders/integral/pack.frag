#version 330 core
// integral/pack.frag — the 2-D method's integral image, (W + 1) x (H + 1)
// texels of one value, packed four columns to a texel as the stage's result
// is (integral.hpp): texel (j, y) holds S(4j .. 4j + 3, y), columns past W
// repeating S(W, y).
//
// Input:    u_source  the integral image (R32UI, (W + 1) x (H + 1))
// Output:   RGBA32UI, ceil((W + 1) / 4) x (H + 1)
#include "common/precision.glsl"

uniform usampler2D u_source;

layout(location = 0) out uvec4 o_packed;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int last = textureSize(u_source, 0).x - 1;
  for (int t = 0; t < 4; ++t) o_packed[t] = texelFetch(u_source, ivec2(min(4 * p.x + t, last), p.y), 0).r;
}
