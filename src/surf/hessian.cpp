#include "surf/hessian.hpp"

#include "gl/error.hpp"

namespace glsurf {

HessianStage::HessianStage(const gl::ShaderSource& shaders, const DetectorConfig& config, HessianMethod method)
    : config_(config),
      method_(method),
      single_(shaders, "common/fullscreen.vert", "hessian/hessian_single.frag"),
      strips_rows_(shaders, "common/fullscreen.vert", "hessian/strips_rows.frag"),
      strips_columns_(shaders, "common/fullscreen.vert", "hessian/strips_columns.frag"),
      multipass_(shaders, "common/fullscreen.vert", "hessian/hessian_multipass.frag") {
  GLSURF_EXPECTS(config.n_octaves >= 1 && config.n_octave_layers >= 1, "invalid detector configuration");
}

void HessianStage::configure(int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0, "image size must be positive");
  width_ = width;
  height_ = height;
  octaves_.clear();
  const int layers = config_.n_octave_layers + 2;
  for (int o = 0; o < config_.n_octaves; ++o) {
    HessianOctave oct;
    oct.octave = o;
    oct.step = sample_step(o);
    oct.grid = glm::ivec2((width - 1) / oct.step + 1, (height - 1) / oct.step + 1);
    for (int g = 0; g * 4 < layers; ++g) {
      glm::ivec4 f(0);
      for (int k = 0; k < 4 && 4 * g + k < layers; ++k) f[k] = filter_size(o, 4 * g + k);
      oct.filters.push_back(f);
      const std::string suffix = "_o" + std::to_string(o) + "_g" + std::to_string(g);
      oct.det.emplace_back(oct.grid.x, oct.grid.y, gl::Format::RGBA32F, "det" + suffix);
      oct.trace.emplace_back(oct.grid.x, oct.grid.y, gl::Format::RGBA32F, "trace" + suffix);
    }
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      oct.targets.emplace_back(std::vector<const gl::Texture*>{&oct.det[g], &oct.trace[g]},
                               "hessian" + oct.det[g].label().substr(3));
    }
    if (method_ == HessianMethod::MultiPass) {
      const std::string suffix = "_o" + std::to_string(o);
      oct.rows = gl::Texture(width + 1, oct.grid.y, gl::Format::RGBA32UI, "strips_rows" + suffix);
      oct.cross = gl::Texture(width + 1, oct.grid.y, gl::Format::RGBA32UI, "strips_cross" + suffix);
      oct.columns = gl::Texture(oct.grid.x, height + 1, gl::Format::RGBA32UI, "strips_columns" + suffix);
      oct.rows_target = gl::Framebuffer({&oct.rows, &oct.cross}, "strips_rows" + suffix);
      oct.columns_target = gl::Framebuffer({&oct.columns}, "strips_columns" + suffix);
    }
    octaves_.push_back(std::move(oct));
  }
}

void HessianStage::run(gl::PassRunner& runner, const gl::Texture& integral) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  GLSURF_EXPECTS(integral.width() == width_ + 1 && integral.height() == height_ + 1 &&
                     integral.format() == gl::Format::R32UI,
                 "the integral image must be R32UI of (W+1) x (H+1)");
  const glm::ivec2 image_size(width_, height_);
  for (const HessianOctave& oct : octaves_) {
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      if (method_ == HessianMethod::SinglePass) {
        runner.run("hessian_single", single_, oct.targets[g], {{"u_integral", integral}},
                   {{"u_step", oct.step}, {"u_filters", oct.filters[g]}, {"u_image_size", image_size}});
        continue;
      }
      runner.run("hessian_strips_rows", strips_rows_, oct.rows_target, {{"u_integral", integral}},
                 {{"u_step", oct.step}, {"u_filters", oct.filters[g]}});
      runner.run("hessian_strips_columns", strips_columns_, oct.columns_target, {{"u_integral", integral}},
                 {{"u_step", oct.step}, {"u_filters", oct.filters[g]}});
      runner.run("hessian_multipass", multipass_, oct.targets[g],
                 {{"u_rows", oct.rows}, {"u_cross", oct.cross}, {"u_columns", oct.columns}},
                 {{"u_step", oct.step}, {"u_filters", oct.filters[g]}, {"u_image_size", image_size}});
    }
  }
  gl::check_gl_errors("hessian");
}

}  // namespace glsurf
