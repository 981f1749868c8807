#version 330 core
// sift/refine.frag — SIFT's candidates refined (docs/notes/sift.md, Extrema;
// Lowe 2004, 4): drawn with early-Z culling on the cells mark.frag marked,
// it finds the cell's extremum again, then fits the quadratic through its
// 3 x 3 x 3 block of DoG values, moving to the nearest sample of the fit
// until the offset is below 0.5 in x, y and layer (at most kMaxRefineSteps
// fits), and keeps it when |D^| s >= T and its principal curvatures pass
// the edge test, as cpu::sift::find_extrema does. Where cpu::sift computes in
// double (the 3 x 3 solve, D^), this computes in float (GLSL 3.30 has no
// double).
//
// Two candidates that move to the same final sample give the same
// extremum, which the CPU reference lists once. A candidate that moved onto
// a sample that is itself a candidate (its own fragment finds the same
// extremum without moving) is dropped here; two that moved onto a sample
// that is none both stay (about 1 % of the entries on graf1 and box, none on
// noise: sift::GpuSift::detect drops the copy after reading the list back).
//
// Inputs, uniforms: sift/cells.glsl, and
//           u_layer_rects[]  the octave's DoG images 0 .. s + 1 (x, y, w, h; pixels)
//           u_layer          l, the pair's first layer
//           u_contrast       T (contrast_threshold)
//           u_edge           r (edge_threshold)
// Defines:  LAYERS           s
// Output:   RGBA32F (x, y, code, |D^|): the position in octave pixels, the
//           sign of D^, final layer and offset_s as sift/code.glsl encodes
//           them, and the response; fragments without one are discarded
//           (the atlas is cleared to 0).
// Viewport: as mark.frag.
#include "common/precision.glsl"
#include "sift/cells.glsl"
#include "sift/code.glsl"

const int kMaxRefineSteps = 5;  // cpu::sift::kMaxRefineSteps

uniform ivec4 u_layer_rects[LAYERS + 2];
uniform int u_layer;
uniform float u_contrast;
uniform float u_edge;

layout(location = 0) out vec4 o_candidate;

// D of pixels q.x - 1 .. q.x + 1 of row q.y of a layer (inside the image).
vec3 dog_row(int layer, ivec2 q) { return packed_row3(u_dog, u_layer_rects[layer].xy, q); }

// The 3 x 3 determinant, expanded along the first row as cpu::sift's
// solve_offset expands it; m[c] is column c.
float det3(vec3 c0, vec3 c1, vec3 c2) {
  return c0.x * (c1.y * c2.z - c2.y * c1.z) - c1.x * (c0.y * c2.z - c2.y * c0.z) + c2.x * (c0.y * c1.z - c1.y * c0.z);
}

// Round halves away from zero (std::round).
vec3 round_away(vec3 v) { return sign(v) * floor(abs(v) + 0.5); }

void main() {
  Cell c = this_cell();
  int found = cell_extremum(c);
  if (found < 0) discard;
  ivec2 p = c.p0 + ivec2(found & 1, (found >> 1) & 1);
  int layer = u_layer + (found >> 2);
  ivec2 start = p;
  int start_layer = layer;
  ivec2 size = u_rects[0].zw;

  float n[27];  // the block at the current sample, [(layer - 1 .. + 1) * 9 + (dy + 1) * 3 + dx + 1]
  vec3 g, offset;
  float dxx, dyy, dxy;
  bool converged = false;
  for (int step = 0; step < kMaxRefineSteps; ++step) {
    for (int t = 0; t < 9; ++t) {
      vec3 row = dog_row(layer - 1 + t / 3, p + ivec2(0, t % 3 - 1));
      n[3 * t] = row.x;
      n[3 * t + 1] = row.y;
      n[3 * t + 2] = row.z;
    }
    float v = n[13];
    // Derivatives as cpu::sift's, in float.
    g = vec3((n[14] - n[12]) * 0.5, (n[16] - n[10]) * 0.5, (n[22] - n[4]) * 0.5);
    dxx = n[14] + n[12] - 2.0 * v;
    dyy = n[16] + n[10] - 2.0 * v;
    float dss = n[22] + n[4] - 2.0 * v;
    dxy = (n[17] - n[15] - n[11] + n[9]) * 0.25;
    float dxs = (n[23] - n[21] - n[5] + n[3]) * 0.25;
    float dys = (n[25] - n[19] - n[7] + n[1]) * 0.25;
    // offset = -H^-1 g by Cramer's rule.
    vec3 h0 = vec3(dxx, dxy, dxs), h1 = vec3(dxy, dyy, dys), h2 = vec3(dxs, dys, dss);
    float d = det3(h0, h1, h2);
    if (d == 0.0 || isinf(d) || isnan(d)) discard;
    offset = vec3(det3(-g, h1, h2), det3(h0, -g, h2), det3(h0, h1, -g)) / d;
    if (any(isnan(offset)) || any(isinf(offset))) discard;
    if (all(lessThan(abs(offset), vec3(0.5)))) {
      converged = true;
      break;
    }
    // The move, checked in float before it becomes an int.
    vec3 moved = vec3(vec2(p), float(layer)) + round_away(offset);
    if (any(lessThan(moved.xy, vec2(kBorder))) || any(greaterThanEqual(moved.xy, vec2(size - kBorder))) ||
        moved.z < 1.0 || moved.z > float(LAYERS))
      discard;
    p = ivec2(moved.xy);
    layer = int(moved.z);
  }
  if (!converged) discard;

  float v = n[13];
  float fitted = v + 0.5 * (g.x * offset.x + g.y * offset.y + g.z * offset.z);
  if (abs(fitted) * float(LAYERS) < u_contrast) discard;
  float tr = dxx + dyy, det = dxx * dyy - dxy * dxy;
  if (det <= 0.0 || tr * tr * u_edge >= (u_edge + 1.0) * (u_edge + 1.0) * det) discard;

  // Moved onto a sample that is itself a candidate: that sample's own
  // fragment lists this extremum.
  if (p != start || layer != start_layer) {
    bool above = true, below = true;
    for (int t = 0; t < 27; ++t) {
      if (t == 13) continue;
      above = above && v > n[t];
      below = below && v < n[t];
    }
    if (abs(v) > u_threshold && (above || below)) discard;
  }
  o_candidate = vec4(vec2(p) + offset.xy, encode_extremum(fitted, layer, offset.z), abs(fitted));
}
