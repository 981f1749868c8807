#version 330 core
// hessian/strips_columns.frag — first pass of the multi-pass box filters, the
// transpose of strips_rows.frag for Dyy: at sample column X = j * step and
// integral row y, for layer k (lobe l)
//   columns(y) = S(X + l, y) - S(X - l + 1, y)      columns [X-l+1, X+l)
//
// Input:    u_integral  (R32UI, (W+1) x (H+1); common/integral_fetch.glsl)
// Uniforms: u_step, u_filters (sides of the 4 layers; 0 = unused)
// Defines:  FIRST_LAYER as strips_rows.frag
// Output:   RGBA32UI columns per layer
// Viewport: ceil(W / step) x (H + 1): sample columns, every integral row.
#include "common/precision.glsl"
#include "common/linear_fetch.glsl"
#include "common/integral_fetch.glsl"

uniform int u_step;
uniform ivec4 u_filters;
#ifndef FIRST_LAYER
#define FIRST_LAYER 0
#endif

layout(location = 0) out uvec4 o_columns;

void main() {
  int x = int(gl_FragCoord.x) * u_step;
  int y = int(gl_FragCoord.y);
  uvec4 columns = uvec4(0u);
  for (int k = FIRST_LAYER; k < 4; ++k) {
    int l = u_filters[k] / 3;
    columns[k] = integral_at(x + l, y) - integral_at(x - l + 1, y);
  }
  o_columns = columns;
}
