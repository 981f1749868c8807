#version 330 core
// orientation/windows.frag — the window sums of the orientation
// assignment: for keypoint k and candidate direction c (angle 2 pi c /
// u_candidates), the sum of k's samples weighted by max(0, 2 cos(delta) -
// 1)^2, delta the sample's angle to the direction (src/cpu/descriptor.hpp).
// A fragment takes PER_FRAGMENT neighbouring candidates at once, 4 to a vec4,
// so each sample is fetched once for all of them, and keeps the largest (the
// first on ties).
//
// With SECOND (DetectorConfig::second_orientation) it also takes one vector
// of candidates either side, so that it can tell which of its own are local
// maxima of |sum| over the circle of candidates (larger than the one before,
// not smaller than the one after), and writes the two largest of those.
//
// Defines:  SAMPLE_TILE (orient_samples.frag); PER_FRAGMENT
//           candidates per fragment, a multiple of 4; SECOND
// Input:    u_samples     orient_samples.frag output (a SAMPLE_TILE tile per keypoint), 2-D or its
//                         buffer copy (common/linear_fetch.glsl)
// Uniforms: u_count       keypoints in the chunk (block k is its k-th keypoint)
//           u_candidates  directions per keypoint (a multiple of PER_FRAGMENT;
//                         u_candidates / PER_FRAGMENT divides 1024)
// Output:   RGBA32F (sum x, sum y, |sum|^2, candidate) of the largest window
//           among candidates PER_FRAGMENT g .. PER_FRAGMENT (g + 1) - 1, blocks
//           of u_candidates / PER_FRAGMENT texels; with SECOND, locations 1
//           and 2 the same for the largest and second-largest local maximum
//           among them ((0, 0, -1, -1) where there is none)
// Viewport: ceil(count * u_candidates / PER_FRAGMENT / 1024) rows of 1024.
#include "common/precision.glsl"
#include "common/blocks.glsl"
#include "common/linear_fetch.glsl"

uniform SAMPLER u_samples;
uniform int u_count;
uniform int u_candidates;

#include "orientation/window.glsl"

layout(location = 0) out vec4 o_window;
#ifdef SECOND
layout(location = 1) out vec4 o_peak;
layout(location = 2) out vec4 o_next_peak;
#endif

const float kTwoPi = 6.28318530717958647692;

#define VECTORS (PER_FRAGMENT / 4)

#ifdef SECOND
// Keeps the two largest local maxima seen: `peak` (sum x, sum y, |sum|^2,
// candidate) is one when larger than the candidate before it, not smaller
// than the one after.
void consider(vec4 peak, float before, float after) {
  if (!(peak.z > before && peak.z >= after)) return;
  if (peak.z > o_peak.z) {
    o_next_peak = o_peak;
    o_peak = peak;
  } else if (peak.z > o_next_peak.z) {
    o_next_peak = peak;
  }
}
#endif

void main() {
  ivec2 kg = block_of(ivec2(gl_FragCoord.xy), u_candidates / PER_FRAGMENT);
  o_window = vec4(0.0);
#ifdef SECOND
  o_peak = vec4(0.0, 0.0, -1.0, -1.0);
  o_next_peak = o_peak;
#endif
  if (kg.x >= u_count) return;
  // Candidate PER_FRAGMENT g + 4 v + i in lane i of the v-th vectors.
  vec4 ux[VECTORS], uy[VECTORS], sx[VECTORS], sy[VECTORS];
  for (int v = 0; v < VECTORS; ++v) {
    vec4 phi = kTwoPi * (float(PER_FRAGMENT * kg.y + 4 * v) + vec4(0.0, 1.0, 2.0, 3.0)) / float(u_candidates);
    // Doubled (exactly, a power of two), for 2 cos(delta) - 1 in one step below.
    ux[v] = 2.0 * cos(phi);
    uy[v] = 2.0 * sin(phi);
    sx[v] = vec4(0.0);
    sy[v] = vec4(0.0);
  }
#ifdef SECOND
  // Lanes x and y: the candidates just before and just after the group's,
  // around the circle (z and w repeat them). Their sums are computed as in
  // the neighbouring groups' own fragments. (Loops stay at VECTORS: with more
  // vectors llvmpipe kept them rolled, and the pass took 4 times as long.)
  ivec2 ends = (ivec2(PER_FRAGMENT * kg.y - 1, PER_FRAGMENT * (kg.y + 1)) + u_candidates) % u_candidates;
  vec4 phi_ends = kTwoPi * vec4(ends, ends) / float(u_candidates);
  vec4 ends_ux = 2.0 * cos(phi_ends), ends_uy = 2.0 * sin(phi_ends), ends_sx = vec4(0.0), ends_sy = vec4(0.0);
#endif
  int origin = samples_origin(kg.x);
  for (int t = 0; t < kTileTexels; ++t) {
    vec4 pair = FETCH_INDEX(u_samples, sample_index(origin, t));
    for (int h = 0; h < 2; ++h) {
      vec2 g = h == 0 ? pair.xy : pair.zw;
      vec2 u = unit(g);
      // As window_sum (orientation/window.glsl), for 4 directions at once.
      for (int v = 0; v < VECTORS; ++v) {
        vec4 w = max(vec4(0.0), u.x * ux[v] + u.y * uy[v] - 1.0);
        w *= w;
        sx[v] += w * g.x;
        sy[v] += w * g.y;
      }
#ifdef SECOND
      vec4 w = max(vec4(0.0), u.x * ends_ux + u.y * ends_uy - 1.0);
      w *= w;
      ends_sx += w * g.x;
      ends_sy += w * g.y;
#endif
    }
  }
  o_window = vec4(0.0, 0.0, -1.0, 0.0);
#ifdef SECOND
  vec4 ends_n = ends_sx * ends_sx + ends_sy * ends_sy;
  // Candidate c is tested as a peak once c + 1 is known: `held` is c, with
  // held_before the |sum|^2 of c - 1, `previous` that of the last seen.
  vec4 held = vec4(0.0, 0.0, -1.0, -1.0);
  float held_before = 0.0, previous = ends_n.x;
#endif
  for (int v = 0; v < VECTORS; ++v) {
    vec4 n = sx[v] * sx[v] + sy[v] * sy[v];
    for (int i = 0; i < 4; ++i) {
      vec4 window = vec4(sx[v][i], sy[v][i], n[i], float(PER_FRAGMENT * kg.y + 4 * v + i));
      if (n[i] > o_window.z) o_window = window;
#ifdef SECOND
      if (held.w >= 0.0) consider(held, held_before, n[i]);
      held_before = previous;
      previous = n[i];
      held = window;
#endif
    }
  }
#ifdef SECOND
  consider(held, held_before, ends_n.y);
#endif
}
