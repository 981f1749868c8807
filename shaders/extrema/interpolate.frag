#version 330 core
// extrema/interpolate.frag — keypoints of one middle layer of one octave: threshold,
// 3x3x3 non-maximum suppression, and the quadratic fit of Brown & Lowe
// (src/cpu/detector.hpp gives the same rules in C++). With PAIR, of both
// middle layers of a map, l and l+1, in one draw (their neighbours all in one
// texture group).
//
// One fragment per cell of 2 x 2 samples (surf/extrema.hpp): a cell holds at
// most one keypoint of a map. Two samples of a cell are neighbours, so of two
// maxima of the same layer there each would have to exceed the other, and a
// maximum of layer l and one of l+1 would each have to exceed the other's
// value too, since each one's 3x3x3 block holds the other. The 4 x 4 samples
// around the cell serve the blocks of all four.
//
// Inputs:   u_below, u_mid, u_above  det(H) textures (RGBA32F, the octave's
//                                    sample grid) holding layers l-1, l, l+1
//                                    in channels u_channels.x, .y, .z (with
//                                    PAIR only u_mid, holding layers l-1 .. l+2
//                                    in channels x .. w, so 16 look-ups serve
//                                    both layers and all four samples; with
//                                    LINEAR_FETCH its buffer copy,
//                                    common/linear_fetch.glsl)
//           u_signs                  the Laplacian's signs (R8UI) of the group
//                                    holding layer l: bit u_channels.y set
//                                    where its trace is negative (with PAIR:
//                                    l in bit 1, l+1 in bit 2)
// Uniforms: u_channels   without PAIR: channel of each layer in its texture
//           u_threshold  hessianThreshold
//           u_step       sampling step of the octave (2^o times the first step)
//           u_filters    filter sides of layers l-1, l, l+1
//           u_next_filter  with PAIR: filter side of layer l+2
//           u_image_size W, H
//           u_origin     where the octave's cells start in the atlas
//           u_core       the keypoints kept: x0, y0, x1, y1 in pixels, each a
//                        multiple of u_step (TileCore, src/surf/keypoint.hpp)
// Output:   RGBA32F (x, y, size * laplacian, response) of the keypoint found
//           in this cell, in pixels; fragments without one are discarded, so
//           a map's layers share it. Size is the interpolated filter side;
//           laplacian = sign of the trace (+1 dark blob, -1 light blob).
// Viewport: the octave's cells, at u_origin in the candidate atlas.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"

#ifdef PAIR
uniform SAMPLER u_mid;
#else
uniform sampler2D u_below;
uniform sampler2D u_mid;
uniform sampler2D u_above;
#endif
uniform usampler2D u_signs;
#ifndef PAIR
uniform ivec3 u_channels;
#endif
uniform float u_threshold;
uniform int u_step;
uniform ivec3 u_filters;
#ifdef PAIR
uniform int u_next_filter;
#endif
uniform ivec2 u_image_size;
uniform ivec2 u_origin;
uniform ivec4 u_core;

layout(location = 0) out vec4 o_keypoint;

#include "extrema/nms_test.glsl"

// The keypoint at sample p of the layer whose det(H) block is n, a maximum
// there (its 3x3x3 block inside the image, v = n[13] above the threshold
// and all 26 neighbours): the peak of the quadratic through the block (Brown
// & Lowe), if it lies within one sample of p in x, y and scale
// (cpu::kMaxInterpolationOffset, src/cpu/detector.hpp). n is
// [layer * 9 + (dy + 1) * 3 + (dx + 1)]; `channel` is the layer's channel of
// the signs, `filters` the sides of its filter and the layers beside it.
bool fit(ivec2 p, float n[27], int channel, ivec3 filters, out vec4 keypoint) {
  keypoint = vec4(0.0);
  float v = n[13];
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
  if (any(greaterThan(abs(offset), vec3(1.0)))) return false;
  // In the core (in_core, src/surf/keypoint.hpp): the offset against whole
  // numbers of samples, exact, so that of two tiles one keeps the keypoint.
  ivec4 core = u_core / u_step - ivec4(p, p);
  if (offset.x < float(core.x) || offset.x >= float(core.z) || offset.y < float(core.y) ||
      offset.y >= float(core.w))
    return false;

  float laplacian = ((texelFetch(u_signs, p, 0).r >> uint(channel)) & 1u) != 0u ? -1.0 : 1.0;
  vec2 position = (vec2(p) + offset.xy) * float(u_step);
  float size = float(filters.y) + offset.z * float(filters.y - filters.x);
  keypoint = vec4(position, size * laplacian, v);
  return true;
}

void main() {
  ivec2 p0 = 2 * (ivec2(gl_FragCoord.xy) - u_origin);  // the cell's first sample
  ivec2 last = (u_image_size - 1) / u_step;  // the octave's last sample (hessian.hpp)
  // The 4 x 4 samples from p0 - 1 to p0 + 2, row by row: layers l-1 .. l+2
  // in x .. w with PAIR (extrema.cpp pairs a map only then), l-1, l, l+1 in
  // x, y, z otherwise. Look-ups are clamped into the grid: samples near the
  // border fail the border test below (tested with the rest rather than by
  // an early discard: on llvmpipe a discard this early made the whole pass
  // several times slower; docs/notes/llvmpipe.md), and so do
  // a cell's samples past the grid's last row or column.
  vec4 b[16];
  for (int t = 0; t < 16; ++t) {
    ivec2 q = clamp(p0 + ivec2(t % 4 - 1, t / 4 - 1), ivec2(0), last);
#ifdef PAIR
    b[t] = FETCH(u_mid, q, last.x + 1);
#else
    b[t] = vec4(texelFetch(u_below, q, 0)[u_channels.x], texelFetch(u_mid, q, 0)[u_channels.y],
                texelFetch(u_above, q, 0)[u_channels.z], 0.0);
#endif
  }
  // Sample s of the cell (p0 + (s & 1, s >> 1)) has its 3x3 block at
  // b[o .. o + 10], o = (s >> 1) * 4 + (s & 1). Its 8 neighbours' maximum per
  // layer makes the 26 comparisons 3 vector maxima and a few tests: v beats
  // a layer's neighbours when it beats their maximum. The rows' maxima of
  // three, row[r * 2 + x] for the 4 rows and the 2 columns of samples,
  // serve the neighbours above and below of both samples of a column.
  vec4 row[8];
  for (int r = 0; r < 4; ++r) {
    for (int x = 0; x < 2; ++x) row[r * 2 + x] = max(max(b[r * 4 + x], b[r * 4 + x + 1]), b[r * 4 + x + 2]);
  }
  int winner = -1;
  bool upper = false;  // with PAIR: the keypoint is in layer l+1 (z)
  for (int s = 0; s < 4; ++s) {
    int o = (s >> 1) * 4 + (s & 1);
    ivec2 p = p0 + ivec2(s & 1, s >> 1);
    vec4 c = b[o + 5];
    vec4 ring = max(max(row[(s >> 1) * 2 + (s & 1)], row[((s >> 1) + 2) * 2 + (s & 1)]), max(b[o + 4], b[o + 6]));
    vec4 beside = max(ring, c);  // all 9 of each layer, for the layers above and below
    bool first = block_inside(p, u_filters.z) && c.y > u_threshold && c.y > ring.y && c.y > beside.x &&
                 c.y > beside.z;
#ifdef PAIR
    // Layer l+1 (z) may be the maximum instead; never both, each being the
    // other's neighbour. Its block needs layer l+2's margin.
    bool second = !first && block_inside(p, u_next_filter) && c.z > u_threshold && c.z > ring.z &&
                  c.z > beside.y && c.z > beside.w;
#else
    bool second = false;
#endif
    if (first || second) {  // for one s at most (above)
      winner = s;
      upper = second;
    }
  }
  if (winner < 0) discard;
  // The keypoint's 3x3x3 block, centred on its layer, fetched again rather
  // than picked out of b: keeping all 16 texels live until here cost
  // llvmpipe more than 9 look-ups for the few fragments that get here.
  ivec2 p = p0 + ivec2(winner & 1, winner >> 1);
  float n[27];
  for (int t = 0; t < 9; ++t) {
    ivec2 q = clamp(p + ivec2(t % 3 - 1, t / 3 - 1), ivec2(0), last);
#ifdef PAIR
    vec4 v = FETCH(u_mid, q, last.x + 1);
#else
    vec4 v = vec4(texelFetch(u_below, q, 0)[u_channels.x], texelFetch(u_mid, q, 0)[u_channels.y],
                  texelFetch(u_above, q, 0)[u_channels.z], 0.0);
#endif
    vec3 column = upper ? v.yzw : v.xyz;
    n[t] = column.x;
    n[9 + t] = column.y;
    n[18 + t] = column.z;
  }
#ifdef PAIR
  ivec3 filters = upper ? ivec3(u_filters.yz, u_next_filter) : u_filters;
  int channel = upper ? 2 : 1;
#else
  ivec3 filters = u_filters;
  int channel = u_channels.y;
#endif
  if (!fit(p, n, channel, filters, o_keypoint)) discard;
}
