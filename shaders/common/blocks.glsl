// common/blocks.glsl — per-keypoint blocks in 1024-wide textures.
//
// The point list and every per-keypoint texture are 1024 texels wide; a
// texture with B texels per keypoint (B divides 1024) puts keypoint k's
// texel i at linear index k * B + i.

const int kListWidth = 1024;  // CompactStage::kListWidth

ivec2 texel_of(int linear) { return ivec2(linear % kListWidth, linear / kListWidth); }

// (keypoint, index in its block) of the current fragment.
ivec2 block_of(ivec2 frag, int block) {
  int linear = frag.y * kListWidth + frag.x;
  return ivec2(linear / block, linear % block);
}
