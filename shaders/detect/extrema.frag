#version 330 core
// detect/extrema.frag — keypoints of one middle layer of one octave: threshold,
// 3x3x3 non-maximum suppression, and the quadratic fit of Brown & Lowe
// (src/cpu/detector.hpp gives the same rules in C++). With PAIR, of both
// middle layers of a map, l and l+1, in one draw (their neighbours all in one
// texture group): a sample is a keypoint in at most one of them.
//
// Inputs:   u_below, u_mid, u_above  det(H) textures (RGBA32F, the octave's
//                                    sample grid) holding layers l-1, l, l+1
//                                    in channels u_channels.x, .y, .z (with
//                                    PAIR the same texture, and layers l .. l+2
//                                    in the next channels)
//           u_trace                  trace texture holding layer l, channel .y
//                                    (and l+1 in the next one)
// Uniforms: u_channels   channel of each layer in its texture
//           u_threshold  hessianThreshold
//           u_step       sampling step 2^o
//           u_filters    filter sides of layers l-1, l, l+1
//           u_next_filter  with PAIR: filter side of layer l+2
//           u_image_size W, H
//           u_origin     where the octave's grid starts in the atlas
// Output:   RGBA32F (x, y, size * laplacian, response) of the keypoint found
//           at this sample, in pixels; fragments without one are discarded,
//           so the layers of an octave share one map (a sample is a keypoint
//           in at most one layer: its maximum dominates the layers beside it).
//           Size is the interpolated filter side; laplacian = sign of the
//           trace (+1 dark blob, -1 light blob).
// Viewport: the octave's sample grid, at u_origin in the candidate atlas.
#include "common/precision.glsl"

uniform sampler2D u_below;
uniform sampler2D u_mid;
uniform sampler2D u_above;
uniform sampler2D u_trace;
uniform ivec3 u_channels;
uniform float u_threshold;
uniform int u_step;
uniform ivec3 u_filters;
#ifdef PAIR
uniform int u_next_filter;
#endif
uniform ivec2 u_image_size;
uniform ivec2 u_origin;

layout(location = 0) out vec4 o_keypoint;

float det_at(int layer, ivec2 p, ivec3 channels) {
  if (layer == 0) return texelFetch(u_below, p, 0)[channels.x];
  if (layer == 1) return texelFetch(u_mid, p, 0)[channels.y];
  return texelFetch(u_above, p, 0)[channels.z];
}

// The keypoint at sample p of the layer in `channels` (filter sides
// `filters` for it and the layers beside it), if there is one.
bool keypoint_at(ivec2 p, ivec3 channels, ivec3 filters, out vec4 keypoint) {
  keypoint = vec4(0.0);
  // The whole 3x3x3 block must be inside the image; the largest filter decides.
  int half_side = filters.z / 2;
  ivec2 lo = (p - 1) * u_step, hi = (p + 1) * u_step;
  if (any(lessThan(lo, ivec2(half_side))) || any(greaterThan(hi + half_side, u_image_size - 1))) return false;

  float v = det_at(1, p, channels);
  if (!(v > u_threshold)) return false;
  float n[27];  // [layer * 9 + (dy + 1) * 3 + (dx + 1)]
  for (int s = 0; s < 3; ++s) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        float u = det_at(s, p + ivec2(dx, dy), channels);
        n[s * 9 + (dy + 1) * 3 + (dx + 1)] = u;
        if (!(s == 1 && dx == 0 && dy == 0) && !(v > u)) return false;
      }
    }
  }

  // Brown & Lowe: the peak of the quadratic through the 3x3x3 block.
  vec3 g = -0.5 * vec3(n[14] - n[12], n[16] - n[10], n[22] - n[4]);
  float dxx = n[12] - 2.0 * v + n[14];
  float dyy = n[10] - 2.0 * v + n[16];
  float dss = n[4] - 2.0 * v + n[22];
  float dxy = (n[17] - n[15] - n[11] + n[9]) * 0.25;
  float dxs = (n[23] - n[21] - n[5] + n[3]) * 0.25;
  float dys = (n[25] - n[19] - n[7] + n[1]) * 0.25;
  mat3 a = mat3(dxx, dxy, dxs, dxy, dyy, dys, dxs, dys, dss);  // symmetric
  float d = determinant(a);
  if (abs(d) < 1e-12) return false;
  // Cramer's rule, as the CPU reference.
  vec3 offset = vec3(determinant(mat3(g, a[1], a[2])), determinant(mat3(a[0], g, a[2])),
                     determinant(mat3(a[0], a[1], g))) / d;
  if (any(greaterThan(abs(offset), vec3(0.5)))) return false;

  float laplacian = texelFetch(u_trace, p, 0)[channels.y] >= 0.0 ? 1.0 : -1.0;
  vec2 position = (vec2(p) + offset.xy) * float(u_step);
  float size = float(filters.y) + offset.z * float(filters.y - filters.x);
  keypoint = vec4(position, size * laplacian, v);
  return true;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  bool found = keypoint_at(p, u_channels, u_filters, o_keypoint);
#ifdef PAIR
  if (!found) found = keypoint_at(p, u_channels + 1, ivec3(u_filters.yz, u_next_filter), o_keypoint);
#endif
  if (!found) discard;
}
