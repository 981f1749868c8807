// The two-best reduction of the matcher (Chariot & Keriven 2008, 3.3): from
// a first level of candidates, (d1, i1, d2, i2) texels with a query's best
// two of a block of trains, to one texel per query. Level 0 is written by the
// matcher's first pass (matcher/two_nearest.frag; in the plain baseline,
// baseline/matcher_plain.hpp, matcher/first_two.frag from the distance
// texture); merge_two.frag (timer key "matcher_merge_two") then halves the
// levels, four candidates in, two out, until one texel per query, which is
// read back per query tile, one small read of each of the kQueries
// attachments.
//
// Layout: kQueries textures per level, query kQueries r + k of a tile in row r
// of texture k (the shaders take kQueries queries per fragment).
#pragma once

#include <array>
#include <iterator>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/shared_constants.hpp"
#include "gl/texture.hpp"
#include "match/types.hpp"

namespace glsurf {

class TwoBestReduction {
 public:
  static constexpr int kQueries = shader::kMatchQueries;  // queries per fragment

  // Texels of all levels for one query and `blocks` candidates (every level
  // is allocated at once): blocks, then halving, down to 1.
  static long long level_texels(int blocks);

  // Levels for `blocks` first-level candidates per query and tiles of
  // `group_rows` rows of kQueries queries; kept between calls and rebuilt only
  // for another block count or taller tiles.
  void prepare(int blocks, int group_rows);
  // Level 0's target, which the first pass draws into (blocks x groups).
  const gl::Framebuffer& first_level() const { return targets_.front(); }

  // One halving: each query's best two of four candidates, from a level's
  // kQueries textures into the next level (merge_two.frag). Held by the
  // matchers, which share the reduction.
  class MergeTwoPass : public gl::Pass {
   public:
    explicit MergeTwoPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "matcher_merge_two", "matcher/merge_two.frag") {}
    MergeTwoPass& candidates(const std::array<gl::Texture, kQueries>& level) {
      static constexpr const char* kSamplers[] = {"u_candidates0", "u_candidates1", "u_candidates2",
                                                  "u_candidates3", "u_candidates4", "u_candidates5",
                                                  "u_candidates6", "u_candidates7"};
      static_assert(std::size(kSamplers) == kQueries, "a sampler per query of a fragment");
      for (int k = 0; k < kQueries; ++k) input(kSamplers[k], level[static_cast<size_t>(k)]);
      return *this;
    }
  };
  // `merge` from level 0 down to one texel per query, then the tile's `rows`
  // queries read back into out[0 .. rows - 1].
  void reduce(gl::PassRunner& runner, MergeTwoPass& merge, int rows, TwoNearest* out) const;

 private:
  std::vector<std::array<gl::Texture, kQueries>> levels_;
  std::vector<gl::Framebuffer> targets_;
  int blocks_ = 0, group_rows_ = 0;
};

}  // namespace glsurf
