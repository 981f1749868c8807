#version 330 core
// sift/mark.frag — early-Z marks of SIFT's candidates (docs/notes/sift.md,
// Extrema; Terriberry et al. 2008, III-B.2): the cells (sift/cells.glsl) of
// one pair of DoG layers holding a sample with |D| > 0.5 T / s that is
// strictly above (map of maxima) or below (map of minima) all 26 neighbours
// get depth 0, so that refine.frag, drawn with early-Z culling, runs on them
// alone.
//
// Inputs, uniforms: sift/cells.glsl
// Output:   gl_FragDepth = 0 for cells with an extremum; the others are
//           discarded. (No colour is written.)
// Viewport: the pair's two maps side by side (maxima, minima), a texel per
//           cell, at u_origin.
#include "common/precision.glsl"
#include "sift/cells.glsl"

void main() {
  Cell c = this_cell();
  if (cell_extremum(c) < 0) discard;
  gl_FragDepth = 0.0;
}
