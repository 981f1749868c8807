#include "surf/extrema.hpp"

#include "gl/error.hpp"

namespace glsurf {

ExtremaStage::ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config), program_(shaders, "common/fullscreen.vert", "detect/extrema.frag") {}

void ExtremaStage::configure(const HessianStage& hessian, int width, int height) {
  std::vector<CandidateMap> maps;
  for (const HessianOctave& oct : hessian.octaves()) {
    for (int l = 1; l <= config_.n_octave_layers; ++l) {
      CandidateMap m;
      m.octave = oct.octave;
      m.layer = l;
      const std::string label = "candidates_o" + std::to_string(oct.octave) + "_l" + std::to_string(l);
      m.keypoints = gl::Texture(oct.grid.x, oct.grid.y, gl::Format::RGBA32F, label);
      m.target = gl::Framebuffer({&m.keypoints}, label);
      maps.push_back(std::move(m));
    }
  }
  maps_ = std::move(maps);
  width_ = width;
  height_ = height;
}

void ExtremaStage::run(gl::PassRunner& runner, const HessianStage& hessian) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  for (const CandidateMap& m : maps_) {
    const HessianOctave& oct = hessian.octaves()[static_cast<size_t>(m.octave)];
    const int l = m.layer;
    runner.run("detect_extrema", program_, m.target,
               {{"u_below", oct.det[static_cast<size_t>((l - 1) / 4)]},
                {"u_mid", oct.det[static_cast<size_t>(l / 4)]},
                {"u_above", oct.det[static_cast<size_t>((l + 1) / 4)]},
                {"u_trace", oct.trace[static_cast<size_t>(l / 4)]}},
               {{"u_channels", glm::ivec3((l - 1) % 4, l % 4, (l + 1) % 4)},
                {"u_threshold", config_.hessian_threshold},
                {"u_step", oct.step},
                {"u_filters", glm::ivec3(filter_size(m.octave, l - 1), filter_size(m.octave, l),
                                         filter_size(m.octave, l + 1))},
                {"u_image_size", glm::ivec2(width_, height_)}});
  }
  gl::check_gl_errors("extrema");
}

}  // namespace glsurf
