// common/blocks.glsl — per-keypoint blocks in 1024-wide textures.
//
// The point list and every per-keypoint texture are 1024 texels wide. Two
// layouts:
//   runs   a texture with B texels per keypoint puts keypoint k's texel i
//          at linear index k * B + i (block_of, texel_of); a run may cross
//          a row's end, so B need not divide 1024 (padding a run to a
//          divisor costs llvmpipe as much as real texels);
//   tiles  for a pass whose fragments gather from the integral image around
//          their keypoint (describe/descriptor.frag), a side x side square
//          per keypoint (side divides 1024; 1024 / side squares per row of
//          squares), texel i of it at (i % side, i / side) (tile_of,
//          tile_texel). Fragments shaded together (llvmpipe shades 4 x 4
//          blocks; a GPU's warp covers a few 2 x 2 quads) then belong to one
//          keypoint and read nearby memory; with runs, the rows of such a
//          block belong to keypoints a texture row apart.

const int kListWidth = 1024;  // CompactStage::kListWidth

ivec2 texel_of(int linear) { return ivec2(linear % kListWidth, linear / kListWidth); }

// (keypoint, index in its block) of the current fragment.
ivec2 block_of(ivec2 frag, int block) {
  int linear = frag.y * kListWidth + frag.x;
  return ivec2(linear / block, linear % block);
}

// (keypoint, index in its tile) of the current fragment.
ivec2 tile_of(ivec2 frag, int side) {
  ivec2 tile = frag / side, within = frag % side;
  return ivec2(tile.y * (kListWidth / side) + tile.x, within.y * side + within.x);
}

// Texel i of keypoint k's tile.
ivec2 tile_texel(int k, int i, int side) {
  int per_row = kListWidth / side;
  return ivec2(k % per_row, k / per_row) * side + ivec2(i % side, i / side);
}
