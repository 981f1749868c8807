// GPU matcher: the two nearest train descriptors of every query, both ways,
// then the filters of match/types.hpp (on the CPU: they touch m values).
//
//   two_nearest   per (8 queries, block of kBlock train descriptors), each
//                 query's best two (fused distance + first reduction: the
//                 m_I x m_J distance texture is never written; each train
//                 texel is fetched once for the 8 queries, from a buffer
//                 texture: a GPU-side copy of the train descriptors, whose
//                 linear look-ups cost llvmpipe about a third less)
//   merge_two     halving reductions, four candidates in, two out, until one
//                 texel per query; read back per query tile, one small
//                 read of each of the 8 attachments (match/two_best.hpp)
//
// Queries are processed in tiles so that the candidate texture stays within
// the memory budget and the driver's texture size, which lets m_I and m_J go
// to 65,536 and beyond. The mutual check runs the same passes with the roles
// swapped, but only for the trains that some query keeps after the ratio and
// distance filters (pick.frag gathers them on the GPU): the backward lists of
// the others are never read, and real pairs keep a small fraction of them.
//
// Chariot & Keriven's own method, the whole distance texture written, then
// reduced, is kept as a baseline: baseline/matcher_plain.hpp.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gl/context.hpp"
#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/shared_constants.hpp"
#include "gl/texture.hpp"
#include "match/two_best.hpp"
#include "match/types.hpp"
#include "surf/descriptor.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

// A feature set's descriptors and Laplacian signs as the matcher reads them
// (DescriptorTextures): 1 to GpuMatcher::kMaxDescriptorSize values per
// descriptor, zero-padded to whole texels (which leaves every distance as it
// is), 1024 texels to a row. `label` prefixes the textures' labels.
// With by_sign, the entries are sorted by Laplacian sign (positive first,
// each sign in keypoint order; DescriptorTextures::order): with the sign
// filter on, the matcher then compares only same-sign blocks, half the
// work for a set of even signs. GpuMatcher maps its results back to
// keypoint indices.
DescriptorTextures upload_descriptors(const Features& features, const char* label, bool by_sign = false);

class GpuMatcher {
 public:
  static constexpr int kBlock = 64;               // train descriptors per fragment of two_nearest
  static constexpr int kMaxDescriptorSize = 128;  // values per descriptor: two_nearest.frag holds 32 texels
  static constexpr int kQueries = TwoBestReduction::kQueries;  // queries per fragment

  // `memory_budget` bounds the textures of one query tile (bytes) of one
  // direction; with the mutual check the backward direction keeps its own, so
  // up to twice that (it is usually far smaller: only the kept trains).
  // As GpuDetector's, the constructor makes `context` current, and every later
  // call throws glsurf::Error unless it is current on the calling thread.
  GpuMatcher(const gl::Context& context, const MatchConfig& config,
             const gl::ShaderSource& shaders = gl::ShaderSource::from_environment(),
             std::size_t memory_budget = std::size_t(64) << 20);

  // Sets as check_matchable (match/types.hpp) asks, of 1 to
  // kMaxDescriptorSize values (zeros pad them to a multiple of 4 on the
  // GPU, which leaves every distance as it is); a set with no keypoints
  // matches nothing.
  std::vector<Match> match(const Features& query, const Features& train);
  // The same for descriptors already on the GPU (GpuDetector::detect_and_compute
  // with `resident`): nothing but the results crosses the bus.
  std::vector<Match> match(const DescriptorTextures& query, const DescriptorTextures& train);
  // One against many (Chariot & Keriven's online case): an incoming image's
  // descriptors against a set of images already on the GPU; matches per image.
  std::vector<std::vector<Match>> match_many(const DescriptorTextures& query,
                                             const std::vector<const DescriptorTextures*>& images);
  // One direction: the two nearest train descriptors of every query.
  std::vector<TwoNearest> two_nearest(const Features& query, const Features& train);

  gl::PassRunner& runner() { return runner_; }
  // Caps the buffer texture of the train descriptors below
  // the driver's GL_MAX_TEXTURE_BUFFER_SIZE (tests: the GL 3.3 minimum, 65,536
  // texels, so that the trains come in several chunks; < 0: the driver's).
  // There is no 2-D fallback: a cap below 3 rows of 1024 texels
  // plus one block of trains is refused when matching. The copy takes as much
  // GPU memory as the train descriptors, outside memory_budget.
  void limit_buffer_texels(int texels) { buffer_limit_ = texels; }
  const MatchConfig& config() const { return config_; }

 private:
  // Descriptors and signs of one feature set, uploaded once per call.
  using Set = DescriptorTextures;
  // Forward lists, the backward lists the mutual check reads, the filters.
  std::vector<Match> match_sets(const Set& query, const Set& train);
  // Backward lists (train -> query) of mutual_candidates(forward); entries of
  // other trains stay empty.
  std::vector<TwoNearest> backward(const std::vector<TwoNearest>& forward, const Set& query,
                                   const Set& train);

  // The reduction levels and the train descriptors as a buffer texture, for
  // one shape of work, kept between calls. The forward and backward
  // directions have one each, so alternating between them allocates nothing.
  struct Reduction {
    TwoBestReduction levels;
    gl::Texture trains;
  };
  // The two nearest trains of every query.
  std::vector<TwoNearest> run(const Set& query, const Set& train, Reduction& reduction);

  MatchConfig config_;
  std::size_t memory_budget_;
  int buffer_limit_ = -1;  // < 0: the driver's
  gl::PassRunner runner_;
  // two_nearest: per group of kQueries queries and block of trains, each
  // query's best two of the block (distances and first reduction fused),
  // into the reduction's level 0. One variant per descriptor length (TEXELS).
  class TwoNearestPass : public gl::Pass {
   public:
    TwoNearestPass(const gl::ShaderSource& shaders, int texels)
        : Pass(shaders, "matcher_two_nearest", "matcher/two_nearest.frag",
               {"TEXELS " + std::to_string(texels)}) {
      set_work(std::int64_t(kBlock) * kQueries * texels);  // a vec4 multiply-add per train, query and texel
    }
    // The query tile: entries first .. first + count - 1 of `query`.
    TwoNearestPass& queries(const Set& query, int first, int count) {
      input("u_query", query.descriptors);
      input("u_query_signs", query.signs);
      uniform("u_query_first", first);
      return uniform("u_query_count", count), *this;
    }
    // The chunk of `train` from entry `first` on, whose descriptors `chunk`
    // (a buffer texture) holds from texel `offset` on.
    TwoNearestPass& trains(const Set& train, const gl::Texture& chunk, int first, int offset) {
      input("u_trains", chunk);
      input("u_train_signs", train.signs);
      uniform("u_train_plus", train.plus);
      uniform("u_train_count", train.count);
      uniform("u_train_first", first);
      return uniform("u_train_offset", offset), *this;
    }
    TwoNearestPass& block(int trains) { return uniform("u_block", trains), *this; }
    // Pairs of opposite Laplacian signs skipped (MatchConfig::laplacian).
    TwoNearestPass& laplacian(bool on) { return uniform("u_laplacian", on ? 1 : 0), *this; }
  };
  // pick: the blocks of `texels` texels of the entries that `order` lists,
  // in that order (the trains of the mutual check).
  class PickPass : public gl::Pass {
   public:
    explicit PickPass(const gl::ShaderSource& shaders) : Pass(shaders, "matcher_pick", "matcher/pick.frag") {}
    PickPass& source(const gl::Texture& blocks, int texels) {
      input("u_source", blocks);
      return uniform("u_texels", texels), *this;
    }
    PickPass& order(const gl::Texture& entries, int count) {
      input("u_order", entries);
      return uniform("u_count", count), *this;
    }
  };

  // two_nearest for descriptors of `texels` texels, compiled on first use (a
  // constant length keeps the queries in registers: 2.2x faster on llvmpipe
  // than a length in a uniform).
  TwoNearestPass& nearest(int texels);

  gl::ShaderSource shaders_;
  std::map<int, TwoNearestPass> nearest_;
  TwoBestReduction::MergeTwoPass merge_;
  PickPass pick_;
  Reduction forward_, backward_;
  Set picked_;  // the trains of the mutual check
  gl::Framebuffer picked_descriptors_target_, picked_signs_target_;
  gl::Texture pick_order_;  // their indices
  gl::ContextTag context_;  // every call checks that it is current
};

}  // namespace glsurf
