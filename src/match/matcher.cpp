#include "match/matcher.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"

namespace glsurf {

namespace {
constexpr int kWidth = shader::kListWidth;
int rows_for(long long texels) { return static_cast<int>(std::max(1LL, (texels + kWidth - 1) / kWidth)); }

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

GpuMatcher::GpuMatcher(const gl::Context& context, const MatchConfig& config, const gl::ShaderSource& shaders,
                       std::size_t memory_budget, MatchMethod method)
    // `context` is made current before any program is created in it.
    : config_((context.make_current(), config)),
      memory_budget_(memory_budget),
      method_(method),
      shaders_(shaders),
      merge_(shaders, "common/fullscreen.vert", "matcher/merge_two.frag"),
      distances_(shaders, "common/fullscreen.vert", "matcher/distances.frag"),
      first_two_(shaders, "common/fullscreen.vert", "matcher/first_two.frag"),
      column_two_(shaders, "common/fullscreen.vert", "matcher/column_two.frag"),
      pick_(shaders, "common/fullscreen.vert", "matcher/pick.frag"),
      context_(context.tag()) {
  GLSURF_EXPECTS(memory_budget >= 16 * 1024, "memory budget too small");
}

const gl::Program& GpuMatcher::nearest(int texels) {
  auto found = nearest_.find(texels);
  if (found == nearest_.end()) {
    found = nearest_
                .emplace(texels, gl::Program(shaders_, "common/fullscreen.vert", "matcher/two_nearest.frag",
                                             {"TEXELS " + std::to_string(texels)}))
                .first;
  }
  return found->second;
}

GpuMatcher::Set GpuMatcher::upload(const Features& f, const char* label) const {
  GLSURF_EXPECTS(f.descriptor_size > 0 && f.descriptor_size <= kMaxDescriptorSize,
                 "descriptors must have 1 to " + std::to_string(kMaxDescriptorSize) + " values");
  // (The descriptor count was checked by check_matchable before.)
  Set s;
  s.count = static_cast<int>(f.keypoints.size());
  s.texels = (f.descriptor_size + 3) / 4;  // the last texel zero-padded
  const long long texels = static_cast<long long>(s.count) * s.texels;
  s.descriptors =
      gl::Texture(kWidth, rows_for(texels), gl::Format::RGBA32F, std::string(label) + "_descriptors");
  std::vector<float> padded(static_cast<size_t>(kWidth) * s.descriptors.height() * 4, 0.0f);
  const size_t d = static_cast<size_t>(f.descriptor_size), stride = 4 * static_cast<size_t>(s.texels);
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    std::copy_n(f.descriptors.begin() + static_cast<std::ptrdiff_t>(i * d), d,
                padded.begin() + static_cast<std::ptrdiff_t>(i * stride));
  }
  s.descriptors.upload(padded.data());
  s.signs = gl::Texture(kWidth, rows_for(s.count), gl::Format::R32F, std::string(label) + "_signs");
  std::vector<float> signs(static_cast<size_t>(kWidth) * s.signs.height(), 0.0f);
  for (int i = 0; i < s.count; ++i)
    signs[static_cast<size_t>(i)] = f.keypoints[static_cast<size_t>(i)].laplacian >= 0 ? 1.0f : -1.0f;
  s.signs.upload(signs.data());
  return s;
}

std::vector<TwoNearest> GpuMatcher::run(const Set& query, const Set& train, Reduction& reduction,
                                        std::vector<TwoNearest>* backward) {
  std::vector<TwoNearest> out(static_cast<size_t>(query.count));
  GLSURF_EXPECTS(backward == nullptr || method_ == MatchMethod::Plain,
                 "only the plain matcher keeps distances");
  if (backward != nullptr) backward->assign(static_cast<size_t>(train.count), TwoNearest{});
  if (query.count == 0 || train.count == 0) return out;
  const int max_size = gl::max_texture_size();
  const bool plain = method_ == MatchMethod::Plain;
  // Fused: one candidate texel per block of kBlock trains. Plain: one distance
  // per train, then pairs.
  const int blocks = plain ? (train.count + 1) / 2 : (train.count + kBlock - 1) / kBlock;
  if (blocks > max_size || (plain && train.count > max_size)) {
    throw Error(
        std::to_string(train.count) + " train descriptors are more than the " +
        (plain ? "plain matcher's limit of " + std::to_string(max_size) + " (GL_MAX_TEXTURE_SIZE)"
               : "fused matcher's limit of " + std::to_string(static_cast<long long>(max_size) * kBlock)));
  }
  // Query tile: rows within the texture limit and the memory budget
  // (distances for the plain method, candidates and the first reduction level).
  long long level_texels = 0;  // all reduction levels are allocated at once
  for (int w = blocks;; w = (w + 1) / 2) {
    level_texels += w;
    if (w == 1) break;
  }
  const long long per_row = (plain ? 4LL * train.count : 0) + 16LL * level_texels;  // bytes per query
  // (the backward lists add 16 bytes per train, once: left to the slack)
  const int tile = static_cast<int>(std::clamp<long long>(static_cast<long long>(memory_budget_) / per_row, 1,
                                                          std::min(max_size, query.count)));
  const int group_rows = (tile + kQueries - 1) / kQueries;
  reduction.prepare(blocks, group_rows, plain ? train.count : 0);
  // Fused: the trains in chunks (multiples of kBlock) whose rows fit the
  // buffer texture; one chunk unless the driver's buffer textures are small.
  int chunk = train.count, chunks = 1;
  if (!plain) {
    const int max_texels = gl::max_buffer_texels(buffer_limit_);
    const long long max_rows = max_texels / kWidth - 2;  // a chunk's texels span two partial rows at most
    chunk = static_cast<int>(
        std::min<long long>(train.count, max_rows * kWidth / train.texels / kBlock * kBlock));
    if (chunk <= 0) {
      throw Error("buffer textures of " + std::to_string(max_texels) +
                  " texels are too small for one block of train descriptors");
    }
    chunks = (train.count + chunk - 1) / chunk;
    const int texels = static_cast<int>(std::min<long long>(
        max_texels, (static_cast<long long>(chunk) * train.texels / kWidth + 2) * kWidth));
    if (!reduction.trains || reduction.trains.width() < texels) {
      reduction.trains = gl::Texture();
      reduction.trains = gl::Texture::buffer(texels, gl::Format::RGBA32F, "matcher_trains");
    }
  }
  const auto& levels = reduction.levels;
  const auto& targets = reduction.targets;
  const gl::Texture& distances = reduction.distances;
  const gl::Framebuffer& distances_target = reduction.distances_target;

  for (int first = 0; first < query.count; first += tile) {
    const int rows = std::min(tile, query.count - first);
    const int groups = (rows + kQueries - 1) / kQueries;
    if (plain) {
      runner_.run_in(
          {0, 0, train.count, rows}, "matcher_distances", distances_, distances_target,
          {{"u_query", query.descriptors},
           {"u_train", train.descriptors},
           {"u_query_signs", query.signs},
           {"u_train_signs", train.signs}},
          {{"u_texels", query.texels}, {"u_query_first", first}, {"u_laplacian", config_.laplacian ? 1 : 0}});
      runner_.run_in({0, 0, blocks, groups}, "matcher_first_two", first_two_, targets[0],
                     {{"u_distances", distances}});
      if (backward != nullptr) {
        runner_.run("matcher_column_two", column_two_, reduction.columns_target, {{"u_distances", distances}},
                    {{"u_rows", rows}, {"u_query_first", first}});
        merge_lists(*backward, reduction.columns_target.read_f32(0, 0, 0, train.count, 1));
      }
    } else {
      for (int c0 = 0; c0 < train.count; c0 += chunk) {
        // The chunk's train descriptors: whole rows of their texture (the
        // chunk starts at texel offset within its first row).
        const int c1 = std::min(train.count, c0 + chunk);
        const long long t0 = static_cast<long long>(c0) * train.texels,
                        t1 = static_cast<long long>(c1) * train.texels;
        const int row0 = static_cast<int>(t0 / kWidth), row1 = static_cast<int>((t1 + kWidth - 1) / kWidth);
        if (chunks > 1 || first == 0) {
          reduction.trains.copy_rows(train.descriptors, row0, row1 - row0);
          runner_.after_transfer();
        }
        const int b0 = c0 / kBlock, b1 = (c1 + kBlock - 1) / kBlock;
        runner_.run_in({b0, 0, b1 - b0, groups}, "matcher_two_nearest", nearest(query.texels), targets[0],
                       {{"u_query", query.descriptors},
                        {"u_trains", reduction.trains},
                        {"u_query_signs", query.signs},
                        {"u_train_signs", train.signs}},
                       {{"u_block", kBlock},
                        {"u_train_count", train.count},
                        {"u_train_first", c0},
                        {"u_train_offset", static_cast<int>(t0 - static_cast<long long>(row0) * kWidth)},
                        {"u_query_first", first},
                        {"u_query_count", rows},
                        {"u_laplacian", config_.laplacian ? 1 : 0}});
      }
    }
    static_assert(kQueries == 8, "merge_two.frag, first_two.frag and two_nearest.frag take 8 queries");
    for (size_t l = 1; l < levels.size(); ++l) {
      const auto& in = levels[l - 1];
      runner_.run_in({0, 0, levels[l][0].width(), groups}, "matcher_merge_two", merge_, targets[l],
                     {{"u_candidates0", in[0]},
                      {"u_candidates1", in[1]},
                      {"u_candidates2", in[2]},
                      {"u_candidates3", in[3]},
                      {"u_candidates4", in[4]},
                      {"u_candidates5", in[5]},
                      {"u_candidates6", in[6]},
                      {"u_candidates7", in[7]}});
    }
    for (int k = 0; k < kQueries; ++k) {
      const std::vector<float> best = targets.back().read_f32(k, 0, 0, 1, groups);
      for (int g = 0; g < groups; ++g) {
        const int r = g * kQueries + k;
        if (r >= rows) break;
        const float* b = &best[static_cast<size_t>(g) * 4];
        TwoNearest& t = out[static_cast<size_t>(first + r)];
        t.best = static_cast<int>(b[1]);
        t.best_d2 = t.best >= 0 ? b[0] : 0.0f;
        t.second = static_cast<int>(b[3]);
        t.second_d2 = t.second >= 0 ? b[2] : 0.0f;
      }
    }
  }
  gl::check_gl_errors("matcher");
  return out;
}

void GpuMatcher::Reduction::prepare(int blocks, int group_rows, int train_count) {
  // Taller than needed is fine: every pass draws only the tile's rows.
  if (blocks == this->blocks && group_rows <= this->group_rows && train_count == this->train_count) return;
  *this = Reduction{};  // release the old shape first
  // Levels for one tile: width blocks, then halving; kQueries textures each
  // (query kQueries r + k of the tile in row r of texture k).
  for (int w = blocks;; w = (w + 1) / 2) {
    levels.emplace_back();
    for (int k = 0; k < kQueries; ++k) {
      levels.back()[static_cast<size_t>(k)] =
          gl::Texture(w, group_rows, gl::Format::RGBA32F,
                      "matcher_candidates_" + std::to_string(w) + "_" + std::to_string(k));
    }
    if (w == 1) break;
  }
  for (const auto& l : levels) {
    std::vector<const gl::Texture*> textures;
    for (const gl::Texture& t : l) textures.push_back(&t);
    targets.emplace_back(textures, l[0].label());
  }
  if (train_count > 0) {
    distances = gl::Texture(train_count, group_rows * kQueries, gl::Format::R32F, "matcher_distances");
    distances_target = gl::Framebuffer({&distances}, "matcher_distances");
    columns = gl::Texture(train_count, 1, gl::Format::RGBA32F, "matcher_columns");
    columns_target = gl::Framebuffer({&columns}, "matcher_columns");
  }
  this->blocks = blocks;
  this->group_rows = group_rows;
  this->train_count = train_count;
}

std::vector<TwoNearest> GpuMatcher::two_nearest(const Features& query, const Features& train) {
  context_.require_current("GpuMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty())
    return std::vector<TwoNearest>(query.keypoints.size());
  return run(upload(query, "query"), upload(train, "train"), forward_);
}

std::vector<Match> GpuMatcher::match(const Features& query, const Features& train) {
  context_.require_current("GpuMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty()) return {};
  return match_sets(upload(query, "query"), upload(train, "train"));
}

std::vector<Match> GpuMatcher::match(const DescriptorTextures& query, const DescriptorTextures& train) {
  context_.require_current("GpuMatcher");
  if (query.texels != train.texels && query.count > 0 && train.count > 0) {
    throw Error("cannot match: descriptor sizes differ (" + std::to_string(4 * query.texels) + " and " +
                std::to_string(4 * train.texels) + " values)");
  }
  return match_sets(query, train);
}

std::vector<Match> GpuMatcher::match_sets(const Set& query, const Set& train) {
  if (config_.mutual && method_ == MatchMethod::Plain) {  // both directions from one distance texture
    std::vector<TwoNearest> back;
    const std::vector<TwoNearest> forward = run(query, train, forward_, &back);
    return filter_matches(forward, back, config_);
  }
  const std::vector<TwoNearest> forward = run(query, train, forward_);
  return filter_matches(forward, config_.mutual ? backward(forward, query, train) : std::vector<TwoNearest>{},
                        config_);
}

std::vector<TwoNearest> GpuMatcher::backward(const std::vector<TwoNearest>& forward, const Set& query,
                                             const Set& train) {
  std::vector<TwoNearest> out(static_cast<size_t>(train.count));
  const std::vector<int> picked = mutual_candidates(forward, config_);
  const int count = static_cast<int>(picked.size());
  if (count == 0) return out;
  // Textures and their targets only grow (the kept trains differ from pair
  // to pair).
  const auto fit = [](gl::Texture& t, gl::Framebuffer* target, int rows, gl::Format format,
                      const char* label) {
    if (t && t.height() >= rows) return;
    t = gl::Texture(kWidth, rows, format, label);
    if (target != nullptr) *target = gl::Framebuffer({&t}, label);
  };
  fit(picked_.descriptors, &picked_descriptors_target_,
      rows_for(static_cast<long long>(count) * train.texels), gl::Format::RGBA32F,
      "matcher_picked_descriptors");
  fit(picked_.signs, &picked_signs_target_, rows_for(count), gl::Format::R32F, "matcher_picked_signs");
  fit(pick_order_, nullptr, rows_for(count), gl::Format::R32F, "matcher_pick_order");
  picked_.count = count;
  picked_.texels = train.texels;
  std::vector<float> order(static_cast<size_t>(kWidth) * pick_order_.height(), 0.0f);
  for (int k = 0; k < count; ++k)
    order[static_cast<size_t>(k)] = static_cast<float>(picked[static_cast<size_t>(k)]);
  pick_order_.upload(order.data());
  runner_.run_in({0, 0, kWidth, rows_for(static_cast<long long>(count) * train.texels)}, "matcher_pick",
                 pick_, picked_descriptors_target_,
                 {{"u_source", train.descriptors}, {"u_order", pick_order_}},
                 {{"u_count", count}, {"u_texels", train.texels}});
  runner_.run_in({0, 0, kWidth, rows_for(count)}, "matcher_pick", pick_, picked_signs_target_,
                 {{"u_source", train.signs}, {"u_order", pick_order_}},
                 {{"u_count", count}, {"u_texels", 1}});
  const std::vector<TwoNearest> lists = run(picked_, query, backward_);
  for (int k = 0; k < count; ++k)
    out[static_cast<size_t>(picked[static_cast<size_t>(k)])] = lists[static_cast<size_t>(k)];
  return out;
}

std::vector<std::vector<Match>> GpuMatcher::match_many(const DescriptorTextures& query,
                                                       const std::vector<const DescriptorTextures*>& images) {
  context_.require_current("GpuMatcher");
  std::vector<std::vector<Match>> out;
  out.reserve(images.size());
  for (const DescriptorTextures* image : images) {
    GLSURF_EXPECTS(image != nullptr, "null image in match_many");
    out.push_back(match(query, *image));
  }
  return out;
}

}  // namespace glsurf
