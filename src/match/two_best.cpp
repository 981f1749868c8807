#include "match/two_best.hpp"

#include <string>

namespace glsurf {

long long TwoBestReduction::level_texels(int blocks) {
  long long texels = 0;
  for (int w = blocks;; w = (w + 1) / 2) {
    texels += w;
    if (w == 1) break;
  }
  return texels;
}

void TwoBestReduction::prepare(int blocks, int group_rows) {
  // Taller than needed is fine: every pass draws only the tile's rows.
  if (blocks == blocks_ && group_rows <= group_rows_) return;
  *this = TwoBestReduction{};  // release the old shape first
  for (int w = blocks;; w = (w + 1) / 2) {
    levels_.emplace_back();
    for (int k = 0; k < kQueries; ++k) {
      levels_.back()[static_cast<size_t>(k)] =
          gl::Texture(w, group_rows, gl::Format::RGBA32F,
                      "matcher_candidates_" + std::to_string(w) + "_" + std::to_string(k));
    }
    if (w == 1) break;
  }
  for (const auto& l : levels_) {
    std::vector<const gl::Texture*> textures;
    for (const gl::Texture& t : l) textures.push_back(&t);
    targets_.emplace_back(textures, l[0].label());
  }
  blocks_ = blocks;
  group_rows_ = group_rows;
}

void TwoBestReduction::reduce(gl::PassRunner& runner, MergeTwoPass& merge, int rows, TwoNearest* out) const {
  const int groups = (rows + kQueries - 1) / kQueries;
  static_assert(kQueries == 8, "merge_two.frag, first_two.frag and two_nearest.frag take 8 queries");
  for (size_t l = 1; l < levels_.size(); ++l) {
    merge.candidates(levels_[l - 1]).draw(runner, targets_[l], {0, 0, levels_[l][0].width(), groups});
  }
  for (int k = 0; k < kQueries; ++k) {
    const std::vector<float> best = targets_.back().read_f32(k, 0, 0, 1, groups);
    for (int g = 0; g < groups; ++g) {
      const int r = g * kQueries + k;
      if (r >= rows) break;
      const float* b = &best[static_cast<size_t>(g) * 4];
      TwoNearest& t = out[r];
      t.best = static_cast<int>(b[1]);
      t.best_d2 = t.best >= 0 ? b[0] : 0.0f;
      t.second = static_cast<int>(b[3]);
      t.second_d2 = t.second >= 0 ? b[2] : 0.0f;
    }
  }
}

}  // namespace glsurf
