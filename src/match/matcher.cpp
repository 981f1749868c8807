#include "match/matcher.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"

namespace glsurf {

namespace {
constexpr int kWidth = shader::kListWidth;
int rows_for(long long texels) { return static_cast<int>(std::max(1LL, (texels + kWidth - 1) / kWidth)); }
}  // namespace

GpuMatcher::GpuMatcher(const gl::Context& context, const MatchConfig& config, const gl::ShaderSource& shaders,
                       std::size_t memory_budget)
    // `context` is made current before any program is created in it.
    : config_((context.make_current(), config)),
      memory_budget_(memory_budget),
      shaders_(shaders),
      merge_(shaders),
      pick_(shaders),
      context_(context.tag()) {
  GLSURF_EXPECTS(memory_budget >= 16 * 1024, "memory budget too small");
}

GpuMatcher::TwoNearestPass& GpuMatcher::nearest(int texels) {
  auto found = nearest_.find(texels);
  if (found == nearest_.end()) found = nearest_.emplace(texels, TwoNearestPass(shaders_, texels)).first;
  return found->second;
}

DescriptorTextures upload_descriptors(const Features& f, const char* label, bool by_sign) {
  constexpr int kMaxDescriptorSize = GpuMatcher::kMaxDescriptorSize;
  GLSURF_EXPECTS(f.descriptor_size > 0 && f.descriptor_size <= kMaxDescriptorSize,
                 "descriptors must have 1 to " + std::to_string(kMaxDescriptorSize) + " values");
  GLSURF_EXPECTS(f.descriptors.size() == f.keypoints.size() * static_cast<size_t>(f.descriptor_size),
                 "a descriptor per keypoint (check_matchable)");
  DescriptorTextures s;
  s.count = static_cast<int>(f.keypoints.size());
  s.texels = (f.descriptor_size + 3) / 4;  // the last texel zero-padded
  const long long texels = static_cast<long long>(s.count) * s.texels;
  s.descriptors =
      gl::Texture(kWidth, rows_for(texels), gl::Format::RGBA32F, std::string(label) + "_descriptors");
  std::vector<float> padded(static_cast<size_t>(kWidth) * s.descriptors.height() * 4, 0.0f);
  const auto positive = [&](int k) { return f.keypoints[static_cast<size_t>(k)].laplacian >= 0; };
  if (by_sign) {
    s.order.resize(static_cast<size_t>(s.count));
    for (int i = 0; i < s.count; ++i) s.order[static_cast<size_t>(i)] = i;
    s.plus =
        static_cast<int>(std::stable_partition(s.order.begin(), s.order.end(), positive) - s.order.begin());
  }
  const auto keypoint = [&](size_t i) { return by_sign ? static_cast<size_t>(s.order[i]) : i; };
  const size_t d = static_cast<size_t>(f.descriptor_size), stride = 4 * static_cast<size_t>(s.texels);
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    std::copy_n(f.descriptors.begin() + static_cast<std::ptrdiff_t>(keypoint(i) * d), d,
                padded.begin() + static_cast<std::ptrdiff_t>(i * stride));
  }
  s.descriptors.upload(padded.data());
  s.signs = gl::Texture(kWidth, rows_for(s.count), gl::Format::R32F, std::string(label) + "_signs");
  std::vector<float> signs(static_cast<size_t>(kWidth) * s.signs.height(), 0.0f);
  for (size_t i = 0; i < f.keypoints.size(); ++i)
    signs[i] = positive(static_cast<int>(keypoint(i))) ? 1.0f : -1.0f;
  s.signs.upload(signs.data());
  return s;
}

std::vector<TwoNearest> GpuMatcher::run(const Set& query, const Set& train, Reduction& reduction) {
  std::vector<TwoNearest> out(static_cast<size_t>(query.count));
  if (query.count == 0 || train.count == 0) return out;
  const int max_size = gl::max_texture_size();
  // One candidate texel per block of kBlock trains.
  const int blocks = (train.count + kBlock - 1) / kBlock;
  if (blocks > max_size) {
    throw Error(std::to_string(train.count) +
                " train descriptors are more than the fused matcher's limit of " +
                std::to_string(static_cast<long long>(max_size) * kBlock));
  }
  // Query tile: rows within the texture limit and the memory budget
  // (candidates and the first reduction level).
  const long long per_row = 16LL * TwoBestReduction::level_texels(blocks);  // bytes per query
  const int tile = static_cast<int>(std::clamp<long long>(static_cast<long long>(memory_budget_) / per_row, 1,
                                                          std::min(max_size, query.count)));
  const int group_rows = (tile + kQueries - 1) / kQueries;
  reduction.levels.prepare(blocks, group_rows);
  // The trains in chunks (multiples of kBlock) whose rows fit the buffer
  // texture; one chunk unless the driver's buffer textures are small.
  const int max_texels = gl::max_buffer_texels(buffer_limit_);
  const long long max_rows = max_texels / kWidth - 2;  // a chunk's texels span two partial rows at most
  const int chunk =
      static_cast<int>(std::min<long long>(train.count, max_rows * kWidth / train.texels / kBlock * kBlock));
  if (chunk <= 0) {
    throw Error("buffer textures of " + std::to_string(max_texels) +
                " texels are too small for one block of train descriptors");
  }
  const int chunks = (train.count + chunk - 1) / chunk;
  const int texels = static_cast<int>(
      std::min<long long>(max_texels, (static_cast<long long>(chunk) * train.texels / kWidth + 2) * kWidth));
  if (!reduction.trains || reduction.trains.width() < texels) {
    reduction.trains = gl::Texture();
    reduction.trains = gl::Texture::buffer(texels, gl::Format::RGBA32F, "matcher_trains");
  }

  for (int first = 0; first < query.count; first += tile) {
    const int rows = std::min(tile, query.count - first);
    const int groups = (rows + kQueries - 1) / kQueries;
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
      nearest(query.texels)
          .queries(query, first, rows)
          .trains(train, reduction.trains, c0, static_cast<int>(t0 - static_cast<long long>(row0) * kWidth))
          .block(kBlock)
          .laplacian(config_.laplacian)
          .draw(runner_, reduction.levels.first_level(), {b0, 0, b1 - b0, groups});
    }
    reduction.levels.reduce(runner_, merge_, rows, &out[static_cast<size_t>(first)]);
  }
  gl::check_gl_errors("matcher");
  return out;
}

std::vector<TwoNearest> GpuMatcher::two_nearest(const Features& query, const Features& train) {
  context_.require_current("GpuMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty())
    return std::vector<TwoNearest>(query.keypoints.size());
  return run(upload_descriptors(query, "query"), upload_descriptors(train, "train"), forward_);
}

std::vector<Match> GpuMatcher::match(const Features& query, const Features& train) {
  context_.require_current("GpuMatcher");
  check_matchable(query, train);
  if (query.keypoints.empty() || train.keypoints.empty()) return {};
  return match_sets(upload_descriptors(query, "query", true), upload_descriptors(train, "train", true));
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
  const std::vector<TwoNearest> forward = run(query, train, forward_);
  const std::vector<TwoNearest> back =
      config_.mutual ? backward(forward, query, train) : std::vector<TwoNearest>{};
  gl::check_context_not_lost("GpuMatcher");  // what was read is garbage after a reset
  std::vector<Match> matches = filter_matches(forward, back, config_);
  if (query.order.empty() && train.order.empty()) return matches;
  // Entries sorted by sign: back to keypoint indices, in query order.
  for (Match& m : matches) {
    if (!query.order.empty()) m.query = query.order[static_cast<size_t>(m.query)];
    if (!train.order.empty()) m.train = train.order[static_cast<size_t>(m.train)];
  }
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) { return a.query < b.query; });
  return matches;
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
  // picked is in entry order, so a train set sorted by sign gives a sorted pick.
  picked_.plus =
      train.plus < 0
          ? -1
          : static_cast<int>(std::lower_bound(picked.begin(), picked.end(), train.plus) - picked.begin());
  std::vector<float> order(static_cast<size_t>(kWidth) * pick_order_.height(), 0.0f);
  for (int k = 0; k < count; ++k)
    order[static_cast<size_t>(k)] = static_cast<float>(picked[static_cast<size_t>(k)]);
  pick_order_.upload(order.data());
  pick_.source(train.descriptors, train.texels)
      .order(pick_order_, count)
      .draw(runner_, picked_descriptors_target_,
            {0, 0, kWidth, rows_for(static_cast<long long>(count) * train.texels)});
  pick_.source(train.signs, 1)
      .order(pick_order_, count)
      .draw(runner_, picked_signs_target_, {0, 0, kWidth, rows_for(count)});
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
