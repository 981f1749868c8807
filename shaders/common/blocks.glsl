// common/blocks.glsl — per-keypoint blocks in 1024-wide textures.
//
// The point list and every per-keypoint texture are 1024 texels wide. Two
// layouts:
//   runs   a texture with B texels per keypoint puts keypoint k's texel i
//          at linear index k * B + i (block_of, texel_of); a run may cross
//          a row's end, so B need not divide 1024 (padding a run to a
//          divisor costs llvmpipe as much as real texels);
//   tiles  for a pass whose fragments gather from the integral image around
//          their keypoint (descriptor/sums.frag, orient_samples.frag), a
//          w x h rectangle per keypoint (1024 / w of them per row of tiles),
//          texel i of it at (i % w, i / w) (tile_of, tile_texel).
//          Fragments shaded together (llvmpipe shades 4 x 4 blocks; a GPU's
//          warp covers a few 2 x 2 quads) then belong to one keypoint, or
//          two or four where the block crosses tiles, and read nearby
//          memory; with runs, the rows of such a block belong to keypoints
//          a texture row apart.

#include "common/constants.h"

ivec2 texel_of(int linear) { return ivec2(linear % kListWidth, linear / kListWidth); }

// (keypoint, index in its block) of the current fragment.
ivec2 block_of(ivec2 frag, int block) {
  int linear = frag.y * kListWidth + frag.x;
  return ivec2(linear / block, linear % block);
}

// Tiles of size.x x size.y texels, 1024 / size.x of them to a row of tiles
// (size.x need not divide 1024; the columns right of the last whole tile
// belong to no keypoint). Square tiles: size = (side, side).
const int kNoTile = 1 << 30;  // the keypoint of a fragment in no tile: beyond any count

// (keypoint, index in its tile) of the current fragment.
ivec2 tile_of(ivec2 frag, ivec2 size) {
  int per_row = kListWidth / size.x;
  ivec2 tile = frag / size, within = frag % size;
  return ivec2(tile.x < per_row ? tile.y * per_row + tile.x : kNoTile, within.y * size.x + within.x);
}
ivec2 tile_of(ivec2 frag, int side) { return tile_of(frag, ivec2(side)); }

// Texel i of keypoint k's tile.
ivec2 tile_texel(int k, int i, ivec2 size) {
  int per_row = kListWidth / size.x;
  return ivec2(k % per_row, k / per_row) * size + ivec2(i % size.x, i / size.x);
}
ivec2 tile_texel(int k, int i, int side) { return tile_texel(k, i, ivec2(side)); }
