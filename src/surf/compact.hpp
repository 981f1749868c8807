// HistoPyramid compaction (Ziegler et al. 2006) of the candidate atlas into a
// point list, with one 1-texel readback of the total.
//
//   level 0      hp_base:    keypoints per 4x4 block of the atlas
//   level k      hp_reduce:  sum of 4x4 blocks of level k-1, down to 1x1
//   point list   hp_traverse: entry k descends the pyramid to the k-th keypoint
//
// 4x4 rather than Ziegler's 2x2: half the levels (on llvmpipe each is a draw
// with a fixed cost; docs/notes/compaction.md), for 16 counts read per
// level of the descent instead of 4. Level 0 also keeps a mask per block of
// which atlas texels it counted, in which class, and the descent's last step
// reads it instead of the atlas.
//
// Levels have size ceil(previous / 4) (no power-of-two padding); even levels
// are packed side by side in one RG32UI texture and odd levels in another, so
// every reduction reads one texture and writes the other.
//
// The pyramid counts two classes of keypoints apart (RG): those for which
// cpu::orientation_inside holds (common/orientation_inside.glsl), whose
// orientation samples need no clipping, and the others. The list holds the
// first class first, so that description can take those entries' samples
// without the clipping arithmetic, with no read-back or upload of the list
// in between.
//
// The list is a 2-D texture pair of `capacity` entries, `list_width` per row:
// keypoints (RGBA32F: x, y, size * laplacian, response) and where they came
// from (RGBA32F: octave, atlas x, atlas y, 0). Within each class entries are
// in the pyramid's (deterministic) order, not sorted.
#pragma once

#include "gl/shared_constants.hpp"
#include "surf/extrema.hpp"

namespace glsurf {

class CompactStage {
 public:
  static constexpr int kListWidth = shader::kListWidth;
  static constexpr int kMaxLevels = shader::kMaxPyramidLevels;

  // Which atlas texels count and list (common/keep.glsl): every keypoint, or,
  // given a selection (select.hpp), those whose response is at or above its
  // threshold (the N strongest and exact ties with the N-th), strictly above
  // it, or exactly at it.
  enum class Keep { All, AtOrAbove, Above, At };

  CompactStage(const gl::ShaderSource& shaders, int capacity);
  // For `extrema`'s atlas of an image_width x image_height image.
  void configure(const ExtremaStage& extrema, int image_width, int image_height);
  // Builds the pyramid and reads back its totals (the one small readback):
  // returns how many keypoints it counts, and puts in `inside` (if given) how
  // many of them are of the first class, which write_list() lists first.
  // `selection` is needed with every `keep` but All.
  int count(gl::PassRunner& runner, const ExtremaStage& extrema, Keep keep = Keep::All,
            const gl::Texture* selection = nullptr, int* inside = nullptr);
  // Lists the keypoints of the pyramid that count() last built (`total` of
  // them, as it returned) from list entry `first` on, as many as fit below
  // capacity(); entries before `first` and rows past the last are not shaded.
  void write_list(gl::PassRunner& runner, const ExtremaStage& extrema, int total, int first = 0);
  // Reads back the first n entries (keypoints, origins), n <= capacity.
  void read_list(int n, std::vector<float>& keypoints, std::vector<float>& where) const;

  // Entries the list holds: the capacity asked for, but never more than the
  // atlas has texels (known after configure()).
  int capacity() const { return list_entries_; }
  const gl::Texture& list() const { return list_keypoints_; }

 private:
  gl::Program base_[4], reduce_, traverse_;  // base_ indexed by Keep
  int capacity_ = 0, list_entries_ = 0;
  glm::ivec2 image_size_{0};
  std::vector<glm::ivec2> origins_, sizes_;  // per level
  gl::Texture even_, odd_;
  gl::Texture masks_;  // level 0's class masks (hp_base.frag)
  gl::Framebuffer base_target_, even_target_, odd_target_;
  gl::Texture list_keypoints_, list_where_;
  gl::Framebuffer list_target_;
};

}  // namespace glsurf
