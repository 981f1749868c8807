// sift/cells.glsl — the cells of SIFT's candidate atlas (src/sift/extrema.hpp)
// and the 26-neighbour test that mark.frag and refine.frag share.
//
// A cell is 2 x 2 samples of a pair of DoG layers l, l + 1 (l = 1, 3, 5, ...;
// l + 1 only where it is <= s): its 8 samples are each other's neighbours,
// so at most one of them is a maximum of its 3 x 3 x 3 block and at most one
// a minimum. Each pair has a map of maxima and one of minima.
//
// Needs: uniforms u_dog (sampler2D, the DoG atlas), u_rects[4] (the DoG
// images of layers l - 1 .. l + 2 of the octave, x, y, w, h; l + 2 clamped
// to s + 1), u_second (1 when layer l + 1 is searched), u_origin (the pair's
// row of maps in the candidate atlas: maxima, then minima), u_cells (a map's
// size), u_threshold (0.5 T / s, as cpu::sift::find_extrema has it).

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

// The 4 x 4 samples from p0 - 1 to p0 + 2, row by row, of layers l - 1 .. l +
// 2 in x .. w, times `sign` (minima become maxima). Look-ups are clamped
// into the image: samples near the border fail the border test.
void load_block(Cell c, out vec4 b[16]) {
  ivec2 last = u_rects[0].zw - 1;
  for (int t = 0; t < 16; ++t) {
    ivec2 q = clamp(c.p0 + ivec2(t % 4 - 1, t / 4 - 1), ivec2(0), last);
    b[t] = c.sign * vec4(texelFetch(u_dog, u_rects[0].xy + q, 0).r, texelFetch(u_dog, u_rects[1].xy + q, 0).r,
                         texelFetch(u_dog, u_rects[2].xy + q, 0).r, texelFetch(u_dog, u_rects[3].xy + q, 0).r);
  }
}

bool inside(ivec2 p) {
  ivec2 size = u_rects[0].zw;
  return all(greaterThanEqual(p, ivec2(kBorder))) && all(lessThan(p, size - kBorder));
}

// The extremum of the cell (in the map's sense: sign * D a strict maximum of
// its 26 neighbours, |D| > u_threshold), as sample index s (0..3, p0 + (s &
// 1, s >> 1)) + 4 for layer l + 1; -1 when there is none.
int cell_extremum(Cell c, vec4 b[16]) {
  // The rows' maxima of three, row[r * 2 + x] for the 4 rows and the 2
  // columns of samples; a sample's 8 neighbours in its layer are the rows
  // above and below and its left and right neighbours.
  vec4 row[8];
  for (int r = 0; r < 4; ++r) {
    for (int x = 0; x < 2; ++x) row[r * 2 + x] = max(max(b[r * 4 + x], b[r * 4 + x + 1]), b[r * 4 + x + 2]);
  }
  int found = -1;
  for (int s = 0; s < 4; ++s) {
    int o = (s >> 1) * 4 + (s & 1);  // the sample's 3 x 3 block is b[o .. o + 10]
    ivec2 p = c.p0 + ivec2(s & 1, s >> 1);
    vec4 v = b[o + 5];
    vec4 ring = max(max(row[(s >> 1) * 2 + (s & 1)], row[((s >> 1) + 2) * 2 + (s & 1)]), max(b[o + 4], b[o + 6]));
    vec4 all9 = max(ring, v);
    bool within = inside(p);
    if (within && abs(v.y) > u_threshold && v.y > ring.y && v.y > all9.x && v.y > all9.z) found = s;
    if (within && u_second != 0 && abs(v.z) > u_threshold && v.z > ring.z && v.z > all9.y && v.z > all9.w) found = s + 4;
  }
  return found;
}
