#include "surf/extrema.hpp"

#include <algorithm>
#include <glm/common.hpp>

#include "gl/error.hpp"

namespace glsurf {

ExtremaStage::ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config), shaders_(shaders) {}

std::vector<AtlasRect> atlas_layout(int width, int height, const DetectorConfig& config, glm::ivec2& size) {
  const int maps = maps_per_octave(config);
  const glm::ivec2 first_grid = cell_grid(octave_grid(width, height, sample_step(0, config.first_step)));
  std::vector<AtlasRect> rects;
  size = glm::ivec2(0);
  int column_y = 0;
  for (int o = 0; o < config.n_octaves; ++o) {
    const glm::ivec2 grid = cell_grid(octave_grid(width, height, sample_step(o, config.first_step)));
    for (int m = 0; m < maps; ++m) {
      AtlasRect r{o, 2 * m + 1, m * grid.x, 0, grid.x, grid.y};
      if (o > 0) {
        r.x = maps * first_grid.x + m * grid.x;
        r.y = column_y;
      }
      size = glm::max(size, glm::ivec2(r.x + r.width, r.y + r.height));
      rects.push_back(r);
    }
    if (o > 0) column_y += grid.y;
  }
  return rects;
}

std::string atlas_size_problem(int width, int height, const DetectorConfig& config) {
  glm::ivec2 size;
  atlas_layout(width, height, config, size);
  const std::string why = gl::texture_size_problem(width, height, "candidate atlas", size.x, size.y);
  return why.empty() || config.n_octave_layers <= 2 ? why : why + " (fewer --layers narrow it)";
}

void ExtremaStage::configure(const HessianStage& hessian, int width, int height) {
  GLSURF_EXPECTS(hessian.octaves().size() == static_cast<size_t>(config_.n_octaves) &&
                     hessian.octaves().front().grid == octave_grid(width, height, config_.first_step),
                 "the Hessian stage is configured for another size");
  glm::ivec2 size;
  std::vector<AtlasRect> rects = atlas_layout(width, height, config_, size);
  if (const std::string why = atlas_size_problem(width, height, config_); !why.empty()) throw Error(why);
  const int atlas_w = size.x, atlas_h = size.y;
  gl::Texture atlas(atlas_w, atlas_h, gl::Format::RGBA32F, "candidates");
  gl::Texture depth(atlas_w, atlas_h, gl::Format::Depth32F, "candidates_depth");
  gl::Framebuffer target({&atlas}, "candidates", &depth);
  // The passes for maps marked layer by layer, only where some map is (with
  // the default two layers per octave none is): each takes llvmpipe time and
  // memory to build.
  const bool singles =
      std::any_of(rects.begin(), rects.end(), [&](const AtlasRect& r) { return !marks_as_pair(r); });
  if (singles && !interpolate_.built()) {
    interpolate_ = InterpolatePass(shaders_, {});
    max3_x_ = Max3Pass(shaders_, Max3Pass::Axis::X);
    max3_y_ = Max3Pass(shaders_, Max3Pass::Axis::Y);
    mark_ = MarkPass(shaders_);
  }
  std::vector<Maxima> maxima;
  for (const HessianOctave& oct : hessian.octaves()) {
    Maxima m;
    const size_t groups = oct.det.size();
    m.needed.assign(groups, false);
    for (const AtlasRect& r : rects) {
      if (r.octave != oct.octave || marks_as_pair(r)) continue;
      for (int l = r.first_layer; l <= last_layer(r); ++l) {
        for (const int k : {l - 1, l, l + 1}) m.needed[static_cast<size_t>(k / 4)] = true;
      }
    }
    const std::string suffix = "_o" + std::to_string(oct.octave);
    m.groups.resize(groups);
    m.group_targets.resize(groups);
    if (std::find(m.needed.begin(), m.needed.end(), true) != m.needed.end()) {
      m.along_x = gl::Texture(oct.grid.x, oct.grid.y, gl::Format::RGBA32F, "max3_x" + suffix);
      m.along_x_target = gl::Framebuffer({&m.along_x}, m.along_x.label());
    }
    for (size_t g = 0; g < groups; ++g) {
      if (!m.needed[g]) continue;
      m.groups[g] = gl::Texture(oct.grid.x, oct.grid.y, gl::Format::RGBA32F,
                                "max3" + suffix + "_g" + std::to_string(g));
      m.group_targets[g] = gl::Framebuffer({&m.groups[g]}, m.groups[g].label());
    }
    maxima.push_back(std::move(m));
  }
  // Pair maps' det(H) as linear look-ups where the driver's buffer textures
  // hold octave 0's grid (the largest); no copy when no map is a pair (one
  // layer per octave).
  const glm::ivec2 grid = hessian.octaves().front().grid;
  const bool pairs =
      std::any_of(rects.begin(), rects.end(), [&](const AtlasRect& r) { return marks_as_pair(r); });
  const bool linear = static_cast<long long>(grid.x) * grid.y <= gl::max_buffer_texels(buffer_limit_);
  InterpolatePass interpolate_pair;  // built when the kind of input changes
  MarkPairPass mark_pair;
  if (linear != linear_ || !interpolate_pair_.built()) {
    const std::vector<std::string> linear_define =
        linear ? std::vector<std::string>{"LINEAR_FETCH"} : std::vector<std::string>{};
    std::vector<std::string> pair_defines = linear_define;
    pair_defines.push_back("PAIR");
    interpolate_pair = InterpolatePass(shaders_, pair_defines);
    mark_pair = MarkPairPass(shaders_, linear_define);
  }
  gl::Texture det_linear;
  if (linear && pairs) {
    const int texels = grid.x * grid.y;
    det_linear = shared_ && shared_->width() >= texels
                     ? gl::Texture::buffer_view(*shared_, texels, gl::Format::RGBA32F, "det_linear")
                     : gl::Texture::buffer(texels, gl::Format::RGBA32F, "det_linear");
  }
  if (interpolate_pair.built()) {
    interpolate_pair_ = std::move(interpolate_pair);
    mark_pair_ = std::move(mark_pair);
  }
  linear_ = linear;
  det_linear_ = std::move(det_linear);
  rects_ = std::move(rects);
  atlas_ = std::move(atlas);
  atlas_depth_ = std::move(depth);
  target_ = std::move(target);
  maxima_ = std::move(maxima);
  width_ = width;
  height_ = height;
}

bool ExtremaStage::marks_as_pair(const AtlasRect& r) const {
  // Layers l-1 .. l+2 share a group of four exactly when l-1 starts one, so
  // a pair's layers are always its channels x .. w (the PAIR shaders rely on it).
  const int l = r.first_layer;
  return last_layer(r) == l + 1 && (l - 1) % 4 == 0;
}

void ExtremaStage::mark_layer(gl::PassRunner& runner, const HessianOctave& oct, const Maxima& m,
                              const AtlasRect& r, int l) {
  mark_
      .layer(oct.det[static_cast<size_t>(l / 4)], m.groups[static_cast<size_t>((l - 1) / 4)],
             m.groups[static_cast<size_t>(l / 4)], m.groups[static_cast<size_t>((l + 1) / 4)],
             glm::ivec3((l - 1) % 4, l % 4, (l + 1) % 4))
      .largest_filter(filter_size(r.octave, l + 1))
      .threshold(config_.hessian_threshold)
      .cells(glm::ivec2(r.x, r.y), oct.step, glm::ivec2(width_, height_))
      .draw_depth(runner, gl::PassRunner::DepthMode::Mark, target_, {r.x, r.y, r.width, r.height});
}

void ExtremaStage::run(gl::PassRunner& runner, const HessianStage& hessian) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  runner.clear(target_, glm::vec4(0.0f));
  runner.clear_depth(target_, 1.0f);
  for (const HessianOctave& oct : hessian.octaves()) {
    const Maxima& m = maxima_[static_cast<size_t>(oct.octave)];
    for (size_t g = 0; g < oct.det.size(); ++g) {
      if (!m.needed[g]) continue;
      max3_x_.source(oct.det[g]).draw(runner, m.along_x_target);
      max3_y_.source(m.along_x).draw(runner, m.group_targets[g]);
    }
  }
  for (const AtlasRect& r : rects_) {
    const HessianOctave& oct = hessian.octaves()[static_cast<size_t>(r.octave)];
    if (marks_as_pair(r)) {  // both layers in one draw: one mark, one interpolation
      const int l = r.first_layer;
      const gl::Texture& det = pair_input(runner, oct, r);
      mark_pair_.group(det)
          .largest_filters(glm::ivec2(filter_size(r.octave, l + 1), filter_size(r.octave, l + 2)))
          .threshold(config_.hessian_threshold)
          .cells(glm::ivec2(r.x, r.y), oct.step, glm::ivec2(width_, height_))
          .draw_depth(runner, gl::PassRunner::DepthMode::Mark, target_, {r.x, r.y, r.width, r.height});
      interpolate(runner, oct, r, &det, gl::PassRunner::DepthMode::Cull);
      continue;
    }
    const Maxima& m = maxima_[static_cast<size_t>(r.octave)];
    for (int l = r.first_layer; l <= last_layer(r); ++l) mark_layer(runner, oct, m, r, l);
    interpolate(runner, oct, r, nullptr, gl::PassRunner::DepthMode::Cull);
  }
  gl::check_gl_errors("extrema");
}

const gl::Texture& ExtremaStage::pair_input(gl::PassRunner& runner, const HessianOctave& oct,
                                            const AtlasRect& r) {
  GLSURF_EXPECTS(marks_as_pair(r), "pair_input() of a map marked layer by layer");
  const gl::Texture& det = oct.det[static_cast<size_t>(r.first_layer / 4)];
  if (!linear_) return det;
  det_linear_.copy_rows(det, 0, det.height());
  runner.after_transfer();
  return det_linear_;
}

void ExtremaStage::interpolate(gl::PassRunner& runner, const HessianOctave& oct, const AtlasRect& r,
                               const gl::Texture* pair_det, gl::PassRunner::DepthMode depth) {
  GLSURF_EXPECTS(width_ > 0, "configure() before interpolate()");
  GLSURF_EXPECTS((pair_det != nullptr) == marks_as_pair(r), "pair_det is for maps marked as pairs");
  const gl::PassRunner::Region region{r.x, r.y, r.width, r.height};
  if (pair_det != nullptr) {  // both layers in one draw (16 look-ups serve both)
    const int l = r.first_layer;
    interpolate_pair_.group(*pair_det)
        .signs(oct.signs[static_cast<size_t>(l / 4)])
        .filters(
            glm::ivec3(filter_size(r.octave, l - 1), filter_size(r.octave, l), filter_size(r.octave, l + 1)))
        .next_filter(filter_size(r.octave, l + 2))
        .threshold(config_.hessian_threshold)
        .cells(glm::ivec2(r.x, r.y), oct.step, glm::ivec2(width_, height_))
        .core(core_)
        .draw_depth(runner, depth, target_, region);
    return;
  }
  for (int l = r.first_layer; l <= last_layer(r); ++l) {
    interpolate_
        .layer(oct.det[static_cast<size_t>((l - 1) / 4)], oct.det[static_cast<size_t>(l / 4)],
               oct.det[static_cast<size_t>((l + 1) / 4)], glm::ivec3((l - 1) % 4, l % 4, (l + 1) % 4))
        .signs(oct.signs[static_cast<size_t>(l / 4)])
        .filters(
            glm::ivec3(filter_size(r.octave, l - 1), filter_size(r.octave, l), filter_size(r.octave, l + 1)))
        .threshold(config_.hessian_threshold)
        .cells(glm::ivec2(r.x, r.y), oct.step, glm::ivec2(width_, height_))
        .core(core_)
        .draw_depth(runner, depth, target_, region);
  }
}

}  // namespace glsurf
