// sift/descriptor_bins.glsl — a spatial bin's raw values (before
// normalisation) from descriptor_cells.frag's sums: bin (sr, sc) adds the
// share of the 4 cells (sr - i, sc - j), i, j in {0, 1}, that went to it,
// their output 2 (2 i + j) + h. The same sums in the same order for every
// reader (descriptor_norms.frag, descriptor_normalize.frag).
//
// Inputs:   u_cell0 .. u_cell7   descriptor_cells.frag's 8 outputs (a 5 x 5
//                                tile per entry of the chunk)

uniform sampler2D u_cell0;
uniform sampler2D u_cell1;
uniform sampler2D u_cell2;
uniform sampler2D u_cell3;
uniform sampler2D u_cell4;
uniform sampler2D u_cell5;
uniform sampler2D u_cell6;
uniform sampler2D u_cell7;

// Texel of cell (cr, cc), cr, cc in -1 .. 3, of tile t.
ivec2 cell_texel(int t, int cr, int cc) { return tile_texel(t, (cr + 1) * 5 + (cc + 1), 5); }

// Orientations 4 h .. 4 h + 3 of spatial bin b = 4 sr + sc of tile t.
vec4 bin_values(int t, int b, int h) {
  int sr = b / 4, sc = b % 4;
  ivec2 c00 = cell_texel(t, sr, sc), c01 = cell_texel(t, sr, sc - 1);
  ivec2 c10 = cell_texel(t, sr - 1, sc), c11 = cell_texel(t, sr - 1, sc - 1);
  if (h == 0) {
    return texelFetch(u_cell0, c00, 0) + texelFetch(u_cell2, c01, 0) + texelFetch(u_cell4, c10, 0) +
           texelFetch(u_cell6, c11, 0);
  }
  return texelFetch(u_cell1, c00, 0) + texelFetch(u_cell3, c01, 0) + texelFetch(u_cell5, c10, 0) +
         texelFetch(u_cell7, c11, 0);
}
