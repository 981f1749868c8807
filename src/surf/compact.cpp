#include "surf/compact.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cpu/descriptor.hpp"
#include "gl/error.hpp"

namespace glsurf {

namespace {
// The common/keep.glsl define of each CompactStage::Keep, and SIFT for SIFT's atlas.
std::vector<std::string> base_defines(CompactStage::Keep keep, bool sift) {
  static const char* const kDefines[] = {nullptr, "SELECT", "SELECT_ABOVE", "SELECT_AT"};
  std::vector<std::string> defines;
  if (const char* define = kDefines[static_cast<int>(keep)]) defines.emplace_back(define);
  if (sift) defines.emplace_back("SIFT");
  return defines;
}
}  // namespace

CandidateAtlas candidate_atlas(const ExtremaStage& extrema) {
  CandidateAtlas atlas;
  atlas.texture = &extrema.atlas();
  for (const AtlasRect& r : extrema.rects()) atlas.rects.emplace_back(r.x, r.y, r.width, r.height);
  atlas.maps_per_octave = extrema.maps_per_octave();
  return atlas;
}

CompactStage::BasePass::BasePass(const gl::ShaderSource& shaders, Keep keep, bool sift)
    : Pass(shaders, "compact_hp_base", "compact/hp_base.frag", base_defines(keep, sift)) {}

CompactStage::CompactStage(const gl::ShaderSource& shaders, int capacity)
    : CompactStage(shaders, capacity, false, 0.0f, 0) {}

CompactStage::CompactStage(const gl::ShaderSource& shaders, int capacity, const SiftConfig& sift)
    : CompactStage(shaders, capacity, true, sift.sigma, sift.n_octave_layers) {}

CompactStage::CompactStage(const gl::ShaderSource& shaders, int capacity, bool sift, float sigma, int layers)
    : sift_(sift),
      sift_sigma_(sigma),
      sift_layers_(layers),
      base_{BasePass(shaders, Keep::All, sift), BasePass(shaders, Keep::AtOrAbove, sift),
            BasePass(shaders, Keep::Above, sift), BasePass(shaders, Keep::At, sift)},
      reduce_(shaders),
      traverse_(shaders, sift),
      capacity_(capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
}

void CompactStage::configure(const CandidateAtlas& atlas, int image_width, int image_height) {
  GLSURF_EXPECTS(atlas.texture != nullptr, "no candidate atlas");
  GLSURF_EXPECTS(atlas.rects.size() <= 32, "at most 32 candidate maps (MAX_RECTS in hp_traverse.frag)");
  const gl::Texture& texture = *atlas.texture;
  std::vector<glm::ivec2> origins, sizes;
  glm::ivec2 size((texture.width() + 3) / 4, (texture.height() + 3) / 4);
  glm::ivec2 packed[2] = {glm::ivec2(0), glm::ivec2(0)};  // extent of the even / odd textures
  for (int level = 0;; ++level) {
    GLSURF_EXPECTS(level < kMaxLevels, "HistoPyramid deeper than kMaxLevels");
    glm::ivec2& extent = packed[level & 1];
    origins.emplace_back(extent.x, 0);
    sizes.push_back(size);
    extent = glm::ivec2(extent.x + size.x, std::max(extent.y, size.y));
    if (size == glm::ivec2(1)) break;
    size = glm::ivec2((size.x + 3) / 4, (size.y + 3) / 4);
  }
  if (packed[1].x == 0) packed[1] = glm::ivec2(1);  // a one-level pyramid has no odd level
  gl::Texture even(packed[0].x, packed[0].y, gl::Format::RG32UI, "histopyramid_even");
  gl::Texture odd(packed[1].x, packed[1].y, gl::Format::RG32UI, "histopyramid_odd");
  // As large as the even texture, whose framebuffer it shares with it for
  // level 0 (at its origin); the rest is not used.
  gl::Texture masks(packed[0].x, packed[0].y, gl::Format::R32UI, "histopyramid_masks");
  gl::Framebuffer base_target({&even, &masks}, "histopyramid_base");
  gl::Framebuffer even_target({&even}, "histopyramid_even");
  gl::Framebuffer odd_target({&odd}, "histopyramid_odd");
  const long long texels = static_cast<long long>(texture.width()) * texture.height();
  const int entries = static_cast<int>(std::min<long long>(capacity_, texels));
  const int rows = (entries + kListWidth - 1) / kListWidth;
  const int width = std::min(entries, kListWidth);
  gl::Texture keypoints(width, rows, gl::Format::RGBA32F, "point_list");
  gl::Texture where(width, rows, gl::Format::RGBA32F, "point_list_where");
  gl::Framebuffer list_target({&keypoints, &where}, "point_list");

  origins_ = std::move(origins);
  sizes_ = std::move(sizes);
  even_ = std::move(even);
  odd_ = std::move(odd);
  masks_ = std::move(masks);
  base_target_ = std::move(base_target);
  even_target_ = std::move(even_target);
  odd_target_ = std::move(odd_target);
  list_keypoints_ = std::move(keypoints);
  list_where_ = std::move(where);
  list_target_ = std::move(list_target);
  list_entries_ = entries;
  image_size_ = glm::ivec2(image_width, image_height);
}

int CompactStage::count(gl::PassRunner& runner, const CandidateAtlas& atlas, Keep keep,
                        const gl::Texture* selection, int* inside) {
  GLSURF_EXPECTS(!sizes_.empty(), "configure() first");
  GLSURF_EXPECTS((keep == Keep::All) == (selection == nullptr), "a selection goes with every keep but All");
  auto region = [&](size_t level) {
    return gl::PassRunner::Region{origins_[level].x, origins_[level].y, sizes_[level].x, sizes_[level].y};
  };
  BasePass& base = base_[static_cast<int>(keep)];
  base.atlas(*atlas.texture);
  if (selection) base.selection(*selection);
  base.origin(origins_[0]);
  if (!sift_) base.orientation_inside(image_size_, static_cast<float>(cpu::kOrientationReach));
  base.draw(runner, base_target_, region(0));
  for (size_t level = 1; level < sizes_.size(); ++level) {
    const bool odd = level & 1;
    reduce_.finer(odd ? even_ : odd_, origins_[level - 1], sizes_[level - 1])
        .origin(origins_[level])
        .draw(runner, odd ? odd_target_ : even_target_, region(level));
  }
  const size_t top = sizes_.size() - 1;
  const gl::Framebuffer& top_target = (top & 1) ? odd_target_ : even_target_;
  gl::check_gl_errors("histopyramid");
  const std::vector<std::uint32_t> totals = top_target.read_u32(0, origins_[top].x, origins_[top].y, 1, 1);
  if (inside) *inside = static_cast<int>(totals[0]);
  return static_cast<int>(totals[0] + totals[1]);
}

void CompactStage::write_list(gl::PassRunner& runner, const CandidateAtlas& atlas, int total, int first) {
  GLSURF_EXPECTS(first >= 0, "negative first list entry");
  const int n = std::min(total, list_entries_ - first);
  if (n <= 0) return;
  const int width = list_keypoints_.width();
  const int first_row = first / width, end_row = (first + n + width - 1) / width;
  const gl::PassRunner::Region rows{0, first_row, width, end_row - first_row};
  traverse_.pyramid(even_, odd_, masks_, origins_, sizes_)
      .atlas(*atlas.texture, atlas.rects, atlas.maps_per_octave)
      .list(list_keypoints_.width(), first);
  if (sift_) traverse_.sift_scale(sift_sigma_, sift_layers_);
  traverse_.draw(runner, list_target_, rows);
  gl::check_gl_errors("point list");
}

void CompactStage::read_list(int n, std::vector<float>& keypoints, std::vector<float>& where) const {
  GLSURF_EXPECTS(n >= 0 && n <= list_entries_, "read past the point list");
  keypoints.clear();
  where.clear();
  if (n == 0) return;
  const int width = list_keypoints_.width();
  const int rows = (n + width - 1) / width;
  keypoints = list_target_.read_f32(0, 0, 0, width, rows);
  where = list_target_.read_f32(1, 0, 0, width, rows);
  keypoints.resize(static_cast<size_t>(n) * 4);
  where.resize(static_cast<size_t>(n) * 4);
}

CompactStage::Listed CompactStage::list_strongest(gl::PassRunner& runner, SelectStage& select,
                                                  const CandidateAtlas& atlas, int wanted, int* inside) {
  Listed r;
  const gl::Texture* selection = wanted > 0 ? &select.run(runner, *atlas.texture, wanted) : nullptr;
  r.candidates = count(runner, atlas, selection ? Keep::AtOrAbove : Keep::All, selection, inside);
  runner.after_transfer();  // count() read the total back
  if (r.candidates > capacity() && !selection) {
    // More than the list holds: keep the strongest that fit (a second count).
    selection = &select.run(runner, *atlas.texture, capacity());
    r.candidates = count(runner, atlas, Keep::AtOrAbove, selection, inside);
    runner.after_transfer();
    r.truncated = true;
  }
  r.listed = std::min(r.candidates, capacity());
  if (r.candidates <= capacity()) {
    write_list(runner, atlas, r.candidates);
    return r;
  }
  // More exact ties with the N-th strongest than the list has room for. The
  // list's own order would drop stronger candidates as readily as ties, so
  // the strictly stronger ones (fewer than N <= capacity) are listed first
  // and the ties fill the rest, in the list's order.
  const int stronger = count(runner, atlas, Keep::Above, selection, inside);
  runner.after_transfer();
  write_list(runner, atlas, stronger);
  const int ties = count(runner, atlas, Keep::At, selection);
  runner.after_transfer();
  write_list(runner, atlas, ties, stronger);
  return r;
}

}  // namespace glsurf
