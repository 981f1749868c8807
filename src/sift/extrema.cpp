#include "sift/extrema.hpp"

#include <algorithm>

#include "gl/error.hpp"

namespace glsurf::sift {

namespace {
int pairs_of(int layers) { return (layers + 1) / 2; }
}  // namespace

AtlasLayout candidate_layout(const std::vector<cpu::sift::OctaveSize>& octaves, int layers) {
  std::vector<cpu::sift::OctaveSize> cells = octaves;
  for (cpu::sift::OctaveSize& c : cells) {
    c.width = (c.width + 1) / 2;
    c.height = (c.height + 1) / 2;
  }
  return atlas_layout(cells, 2 * pairs_of(layers));
}

ExtremaStage::ExtremaStage(const gl::ShaderSource& shaders, const SiftConfig& config)
    : config_(config),
      mark_{MarkPass(shaders, false)},
      refine_{RefinePass(shaders, config.n_octave_layers, false)} {
  // The last pair of an odd s searches one layer.
  if (config.n_octave_layers % 2 == 1) {
    mark_[1] = MarkPass(shaders, true);
    refine_[1] = RefinePass(shaders, config.n_octave_layers, true);
  }
}

std::string ExtremaStage::size_problem(int width, int height, const SiftConfig& config) {
  const std::vector<cpu::sift::OctaveSize> octaves = cpu::sift::octave_sizes(width, height, config);
  if (octaves.empty()) return "";
  const AtlasLayout layout = candidate_layout(octaves, config.n_octave_layers);
  if (std::string why =
          gl::texture_size_problem(width, height, "candidate atlas", layout.size.x, layout.size.y);
      !why.empty()) {
    return why;
  }
  if (!gl::texture_fits(layout.size.x, layout.size.y, gl::Format::RGBA32F)) {
    return "image of " + std::to_string(width) + "x" + std::to_string(height) +
           " is too large: the driver cannot make its candidate atlas of " + std::to_string(layout.size.x) +
           "x" + std::to_string(layout.size.y) + " texels of 16 bytes";
  }
  return "";
}

void ExtremaStage::configure(const ScaleSpaceStage& scale_space) {
  GLSURF_EXPECTS(!scale_space.octaves().empty(), "configure the scale space first");
  const int width = scale_space.width(), height = scale_space.height();
  if (const std::string why = size_problem(width, height, config_); !why.empty()) throw Error(why);
  AtlasLayout layout = candidate_layout(scale_space.octaves(), config_.n_octave_layers);
  gl::Texture atlas(layout.size.x, layout.size.y, gl::Format::RGBA32F, "sift_candidates");
  gl::Texture depth(layout.size.x, layout.size.y, gl::Format::Depth32F, "sift_candidates_depth");
  gl::Framebuffer target({&atlas}, "sift_candidates", &depth);
  layout_ = std::move(layout);
  atlas_ = std::move(atlas);
  depth_ = std::move(depth);
  target_ = std::move(target);
}

CandidateAtlas ExtremaStage::candidates() const {
  CandidateAtlas c;
  c.texture = &atlas_;
  const int maps = 2 * pairs();
  for (size_t k = 0; k * maps < layout_.rects.size(); ++k) {
    const glm::ivec4 first = layout_.rect(static_cast<int>(k), 0);
    c.rects.emplace_back(0, first.y, 2 * first.z, pairs() * first.w);
  }
  c.maps_per_octave = 1;
  return c;
}

void ExtremaStage::run(gl::PassRunner& runner, const ScaleSpaceStage& scale_space) {
  GLSURF_EXPECTS(atlas_.width() > 0, "configure() before run()");
  GLSURF_EXPECTS(candidate_layout(scale_space.octaves(), config_.n_octave_layers).size == layout_.size,
                 "the scale space is configured for another size");
  runner.clear(target_, glm::vec4(0.0f));
  runner.clear_depth(target_, 1.0f);
  const int s = config_.n_octave_layers;
  // As cpu::sift::find_extrema computes it.
  const float threshold = static_cast<float>(0.5 * config_.contrast_threshold / s);
  const AtlasLayout& dogs = scale_space.dog_layout();
  for (size_t k = 0; k < scale_space.octaves().size(); ++k) {
    const int o = static_cast<int>(k);
    std::vector<glm::ivec4> layer_rects;
    for (int i = 0; i < s + 2; ++i) layer_rects.push_back(dogs.rect(o, i));
    for (int j = 0; j < pairs(); ++j) {
      const int l = 2 * j + 1;
      std::vector<glm::ivec4> rects;
      for (int i = l - 1; i <= l + 2; ++i) rects.push_back(dogs.rect(o, std::min(i, s + 1)));
      const glm::ivec4 maxima = layout_.rect(o, 2 * j);
      const glm::ivec2 origin(maxima.x, maxima.y), map_size(maxima.z, maxima.w);
      const gl::PassRunner::Region row{maxima.x, maxima.y, 2 * maxima.z, maxima.w};
      const bool second = l + 1 <= s;
      MarkPass& mark = mark_[second ? 0 : 1];
      RefinePass& refine = refine_[second ? 0 : 1];
      mark.pair(scale_space.dog(), rects, second, origin, map_size, threshold);
      mark.draw_depth(runner, gl::PassRunner::DepthMode::Mark, target_, row);
      refine.pair(scale_space.dog(), rects, second, origin, map_size, threshold);
      refine.octave(layer_rects, l).tests(config_.contrast_threshold, config_.edge_threshold);
      refine.draw_depth(runner, gl::PassRunner::DepthMode::Cull, target_, row);
    }
  }
  gl::check_gl_errors("sift extrema");
}

}  // namespace glsurf::sift
