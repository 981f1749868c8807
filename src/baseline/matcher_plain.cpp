#include "baseline/matcher_plain.hpp"

#include <algorithm>
#include <string>

#include "gl/error.hpp"

namespace glsurf::baseline {

namespace {
constexpr int kQueries = TwoBestReduction::kQueries;

// Merges one query tile's (d1, i1, d2, i2) texels into the backward lists.
// Tiles come in ascending query order, so on equal distances the list's
// entry, the lower index, stays first, as in the CPU reference.
void merge_lists(std::vector<TwoNearest>& lists, const std::vector<float>& tile) {
  for (size_t j = 0; j < lists.size(); ++j) {
    TwoNearest& l = lists[j];
    for (int c = 0; c < 2; ++c) {
      const int i = static_cast<int>(tile[j * 4 + 2 * static_cast<size_t>(c) + 1]);
      const float d = tile[j * 4 + 2 * static_cast<size_t>(c)];
      if (i < 0) break;
      if (l.best < 0 || d < l.best_d2) {
        l.second = l.best;
        l.second_d2 = l.best_d2;
        l.best = i;
        l.best_d2 = d;
      } else if (l.second < 0 || d < l.second_d2) {
        l.second = i;
        l.second_d2 = d;
      }
    }
  }
}
}  // namespace

PlainMatcher::PlainMatcher(const gl::Context& context, const MatchConfig& config,
                           const gl::ShaderSource& shaders, std::size_t memory_budget)
    // `context` is made current before any program is created in it.
    : config_((context.make_current(), config)),
      memory_budget_(memory_budget),
      merge_(shaders),
      distances_(shaders),
      first_two_(shaders),
      column_two_(shaders),
      context_(context.tag()) {
  GLSURF_EXPECTS(memory_budget >= 16 * 1024, "memory budget too small");
}

std::vector<TwoNearest> PlainMatcher::two_nearest(const Features& query, const Features& train) {
  context_.require_current("PlainMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty())
    return std::vector<TwoNearest>(query.keypoints.size());
  return run(upload_descriptors(query, "query"), upload_descriptors(train, "train"), nullptr);
}

std::vector<Match> PlainMatcher::match(const Features& query, const Features& train) {
  context_.require_current("PlainMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty()) return {};
  // Both directions from one distance texture.
  std::vector<TwoNearest> back;
  const std::vector<TwoNearest> forward =
      run(upload_descriptors(query, "query"), upload_descriptors(train, "train"),
          config_.mutual ? &back : nullptr);
  return filter_matches(forward, back, config_);
}

std::vector<TwoNearest> PlainMatcher::run(const DescriptorTextures& query, const DescriptorTextures& train,
                                          std::vector<TwoNearest>* backward) {
  std::vector<TwoNearest> out(static_cast<size_t>(query.count));
  if (backward != nullptr) backward->assign(static_cast<size_t>(train.count), TwoNearest{});
  const int max_size = gl::max_texture_size();
  // One distance per train, then pairs.
  const int blocks = (train.count + 1) / 2;
  if (train.count > max_size) {
    throw Error(std::to_string(train.count) +
                " train descriptors are more than the plain matcher's limit of " + std::to_string(max_size) +
                " (GL_MAX_TEXTURE_SIZE)");
  }
  // Query tile: rows within the texture limit and the memory budget
  // (distances, candidates and the reduction levels; the backward lists add
  // 16 bytes per train, once: left to the slack).
  const long long per_row = 4LL * train.count + 16LL * TwoBestReduction::level_texels(blocks);
  const int tile = static_cast<int>(std::clamp<long long>(static_cast<long long>(memory_budget_) / per_row, 1,
                                                          std::min(max_size, query.count)));
  const int group_rows = (tile + kQueries - 1) / kQueries;
  reduction_.prepare(blocks, group_rows);
  if (train.count != train_count_ || group_rows * kQueries > tile_rows_) {
    distances_texture_ = gl::Texture();  // release the old shape first
    columns_ = gl::Texture();
    distances_texture_ =
        gl::Texture(train.count, group_rows * kQueries, gl::Format::R32F, "matcher_distances");
    distances_target_ = gl::Framebuffer({&distances_texture_}, "matcher_distances");
    columns_ = gl::Texture(train.count, 1, gl::Format::RGBA32F, "matcher_columns");
    columns_target_ = gl::Framebuffer({&columns_}, "matcher_columns");
    train_count_ = train.count;
    tile_rows_ = group_rows * kQueries;
  }

  for (int first = 0; first < query.count; first += tile) {
    const int rows = std::min(tile, query.count - first);
    const int groups = (rows + kQueries - 1) / kQueries;
    distances_.queries(query, first)
        .trains(train)
        .laplacian(config_.laplacian)
        .draw(runner_, distances_target_, {0, 0, train.count, rows});
    first_two_.distances(distances_texture_).draw(runner_, reduction_.first_level(), {0, 0, blocks, groups});
    if (backward != nullptr) {
      column_two_.distances(distances_texture_).queries(first, rows).draw(runner_, columns_target_);
      merge_lists(*backward, columns_target_.read_f32(0, 0, 0, train.count, 1));
    }
    reduction_.reduce(runner_, merge_, rows, &out[static_cast<size_t>(first)]);
  }
  gl::check_gl_errors("matcher (plain)");
  return out;
}

}  // namespace glsurf::baseline
