// Baseline matcher: Chariot & Keriven 2008's distance texture, every
// query-train pair's squared distance written (matcher/distances.frag, timer
// key "matcher_distances"), then each query's best two per pair of trains
// (first_two.frag, "matcher_first_two") and the same merges as the production
// matcher (match/two_best.hpp). Its mutual check reads the backward lists off
// the same distances (column_two.frag, "matcher_column_two") instead of
// matching the kept trains back.
//
// The production GpuMatcher (match/matcher.hpp) fuses the distances into the
// first reduction and never writes the distance texture. This one is kept as
// its test oracle (tests/test_gpu_matcher.cpp) and for `glsurf bench match`;
// not part of the glsurf library. At most GL_MAX_TEXTURE_SIZE trains (one
// distance per train in a row).
#pragma once

#include <cstddef>
#include <vector>

#include "gl/context.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "match/matcher.hpp"
#include "match/two_best.hpp"
#include "match/types.hpp"

namespace glsurf::baseline {

class PlainMatcher {
 public:
  // As GpuMatcher's: `memory_budget` bounds the textures of one query tile
  // (the distances and the reduction levels), and the constructor makes
  // `context` current.
  PlainMatcher(const gl::Context& context, const MatchConfig& config,
               const gl::ShaderSource& shaders = gl::ShaderSource::from_environment(),
               std::size_t memory_budget = std::size_t(64) << 20);

  // As GpuMatcher::match and two_nearest (sets as check_matchable asks).
  std::vector<Match> match(const Features& query, const Features& train);
  std::vector<TwoNearest> two_nearest(const Features& query, const Features& train);

  gl::PassRunner& runner() { return runner_; }

 private:
  // The two nearest trains of every query; with `backward`, also the two
  // nearest queries of every train, reduced from the same distance texture.
  std::vector<TwoNearest> run(const DescriptorTextures& query, const DescriptorTextures& train,
                              std::vector<TwoNearest>* backward);

  MatchConfig config_;
  std::size_t memory_budget_;
  gl::PassRunner runner_;
  // distances: every (query, train) pair's squared distance, a query per
  // row of the distance texture (1e30 for opposite Laplacian signs).
  class DistancesPass : public gl::Pass {
   public:
    explicit DistancesPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "matcher_distances", "matcher/distances.frag") {}
    // Row r is entry first + r of `query`.
    DistancesPass& queries(const DescriptorTextures& query, int first) {
      input("u_query", query.descriptors);
      input("u_query_signs", query.signs);
      uniform("u_texels", query.texels);
      return uniform("u_query_first", first), *this;
    }
    DistancesPass& trains(const DescriptorTextures& train) {
      input("u_train", train.descriptors);
      return input("u_train_signs", train.signs), *this;
    }
    // Pairs of opposite Laplacian signs skipped (MatchConfig::laplacian).
    DistancesPass& laplacian(bool on) { return uniform("u_laplacian", on ? 1 : 0), *this; }
  };
  // first_two: each query's best two of each pair of trains, from the
  // distance texture into the reduction's level 0.
  class FirstTwoPass : public gl::Pass {
   public:
    explicit FirstTwoPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "matcher_first_two", "matcher/first_two.frag") {}
    FirstTwoPass& distances(const gl::Texture& d) { return input("u_distances", d), *this; }
  };
  // column_two: each train's best two queries of the tile's `rows` rows of
  // the distance texture (the backward lists of the mutual check).
  class ColumnTwoPass : public gl::Pass {
   public:
    explicit ColumnTwoPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "matcher_column_two", "matcher/column_two.frag") {}
    ColumnTwoPass& distances(const gl::Texture& d) { return input("u_distances", d), *this; }
    // The tile: `rows` queries from query `first` on.
    ColumnTwoPass& queries(int first, int rows) {
      uniform("u_query_first", first);
      return uniform("u_rows", rows), *this;
    }
  };

  TwoBestReduction::MergeTwoPass merge_;
  DistancesPass distances_;
  FirstTwoPass first_two_;
  ColumnTwoPass column_two_;
  // For one shape of work, kept between calls: the reduction levels, the
  // distance texture (train count x tile rows) and the backward lists.
  TwoBestReduction reduction_;
  gl::Texture distances_texture_, columns_;
  gl::Framebuffer distances_target_, columns_target_;
  int train_count_ = 0, tile_rows_ = 0;
  gl::ContextTag context_;  // every call checks that it is current
};

}  // namespace glsurf::baseline
