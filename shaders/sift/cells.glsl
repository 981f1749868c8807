// sift/cells.glsl — the cells of SIFT's candidate atlas (src/sift/extrema.hpp)
// and the 26-neighbour test that mark.frag and refine.frag share.
//
// A cell is 2 x 2 samples of a pair of DoG layers l, l + 1 (l = 1, 3, 5, ...;
// l + 1 only where it is <= s): its 8 samples are each other's neighbours,
// so at most one of them is a maximum of its 3 x 3 x 3 block and at most one
// a minimum. Each pair has a map of maxima and one of minima, side by side;
// a draw covers both, a fragment tests its map's kind.
//
// Needs: uniforms u_dog (sampler2D, the packed DoG atlas: sift/packed.glsl),
// u_rects[4] (the DoG images of layers l - 1 .. l + 2 of the octave, x, y,
// w, h in pixels; l + 2 clamped
// to s + 1), u_second (1 when layer l + 1 is searched: then ONE_LAYER must
// not be defined, and must be otherwise), u_origin (the pair's
// row of maps in the candidate atlas: maxima, then minima), u_cells (a map's
// size), u_threshold (0.5 T / s, as cpu::sift::find_extrema has it).

#include "sift/packed.glsl"

const int kBorder = 5;  // cpu::sift::kBorder

uniform sampler2D u_dog;
uniform ivec4 u_rects[4];
uniform int u_second;
uniform ivec2 u_origin;
uniform ivec2 u_cells;
uniform float u_threshold;

struct Cell {
  float sign;  // +1 in the map of maxima, -1 in the map of minima
  ivec2 p0;    // the cell's first sample
};

Cell this_cell() {
  ivec2 f = ivec2(gl_FragCoord.xy) - u_origin;
  int minima = f.x >= u_cells.x ? 1 : 0;
  Cell c;
  c.sign = minima == 1 ? -1.0 : 1.0;
  c.p0 = 2 * (f - ivec2(minima * u_cells.x, 0));
  return c;
}

// sign * D of the cell's two columns p0.x, p0.x + 1 (one texel: p0.x is
// even) in row y (clamped into the image) of layer l - 1 + i, i = 0..3.
// Where p0.x is the last column, the texel's next component repeats it
// (sift/packed.glsl), as the clamp to the image would.
vec2 cell_pair(Cell c, int i, int y) {
  ivec4 r = u_rects[i];
  vec4 t = texelFetch(u_dog, ivec2((r.x + c.p0.x) >> 2, r.y + min(y, r.w - 1)), 0);
  return c.sign * ((c.p0.x & 2) == 0 ? t.xy : t.zw);
}

// sign * D of pixels q.x - 1 .. q.x + 1 of row q.y (all inside the image)
// of layer l - 1 + i.
vec3 row3(Cell c, int i, ivec2 q) { return c.sign * packed_row3(u_dog, u_rects[i].xy, q); }

bool inside(ivec2 p) {
  ivec2 size = u_rects[0].zw;
  return all(greaterThanEqual(p, ivec2(kBorder))) && all(lessThan(p, size - kBorder));
}

// The extremum of the cell in the map's sense (sign * D a strict maximum of
// its 26 neighbours, |D| > u_threshold, inside the border), as sample index
// s (0..3: p0 + (s & 1, s >> 1)) + 4 for layer l + 1; -1 when there is none.
// The cell's 8 samples are each other's neighbours, so only the strict
// maximum of the 8 can be one: 8 look-ups find it, 26 more test it, rather
// than 64 for all 8 samples' blocks (on llvmpipe the mark passes of graf1,
// 800 x 640 doubled, took about 115 ms so against 190 ms, wall clock with a
// glFinish around each draw).
int cell_extremum(Cell c) {
  // The 8 samples in the order i = (layer - l) * 4 + dy * 2 + dx.
  // With ONE_LAYER (the pair's layer l + 1 is not searched) only the
  // first 4: a program of its own, as llvmpipe makes the look-ups of a
  // branch whether or not a fragment takes it (graf1 resampled to 640 x 480:
  // the mark passes 76 against 87 ms, medians of four interleaved runs).
#ifdef ONE_LAYER
  const int kSamples = 4;
#else
  const int kSamples = 8;
#endif
  vec2 rows[kSamples / 2];
  rows[0] = cell_pair(c, 1, c.p0.y);
  rows[1] = cell_pair(c, 1, c.p0.y + 1);
#ifndef ONE_LAYER
  rows[2] = cell_pair(c, 2, c.p0.y);
  rows[3] = cell_pair(c, 2, c.p0.y + 1);
#endif
  float best = 0.0;
  int found = -1;
  bool tie = false;
  for (int i = 0; i < kSamples; ++i) {
    float v = rows[i >> 1][i & 1];
    if (found < 0 || v > best) {
      best = v;
      found = i;
      tie = false;
    } else if (v == best) {
      tie = true;
    }
  }
  ivec2 p = c.p0 + ivec2(found & 1, (found >> 1) & 1);
  if (tie || !inside(p) || !(abs(best) > u_threshold)) return -1;
  int mid = 1 + (found >> 2);  // the sample's layer in u_rects
  // The 26 neighbours, three of a row: 18 look-ups of packed texels. The
  // bound is not a constant (u_second is 0 or 1), so that the loop stays
  // rolled and llvmpipe leaves it once every fragment of a group has
  // returned; unrolled, each fragment made all 18 look-ups. On llvmpipe the
  // mark passes of graf1 resampled to 640 x 480 took 124 ms so against
  // 164-187 ms (medians of 8 frames, two interleaved pairs in one process).
  for (int t = 0; t < 9 + min(u_second, 0); ++t) {
    vec3 v = row3(c, mid - 1 + t / 3, p + ivec2(0, t % 3 - 1));
    bvec3 above = greaterThan(vec3(best), v);
    if (t == 4) above.y = true;  // the sample itself
    if (!all(above)) return -1;
  }
  return found;
}
