#include "surf/hessian.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gl/error.hpp"

namespace glsurf {

HessianStage::HessianStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config), shaders_(shaders) {
  GLSURF_EXPECTS(config.n_octaves >= 1 && config.n_octave_layers >= 1 && config.first_step >= 1,
                 "invalid detector configuration");
}

std::vector<std::string> HessianStage::multipass_defines(int first_layer, bool linear) {
  std::vector<std::string> defines{"FIRST_LAYER " + std::to_string(first_layer)};
  if (linear) defines.push_back("LINEAR_FETCH");
  return defines;
}

void HessianStage::configure(int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0, "image size must be positive");
  width_ = width;
  height_ = height;
  octaves_.clear();
  cross_target_ = gl::Framebuffer();
  cross_ = gl::Texture();
  cross_linear_ = gl::Texture();
  const long long integral_texels = integral_linear_texels(width, height);
  const int limit = gl::max_buffer_texels(buffer_limit_);
  const bool linear = integral_texels <= limit;       // the strips are no larger
  if (linear != linear_ || !multipass_[0].built()) {  // passes for the kind of input
    for (int first : {0, inherited_layers()}) {
      strips_cross_[first > 0] = StripsCrossPass(shaders_, first, linear);
      multipass_[first > 0] = HessianMultipassPass(shaders_, first, linear);
    }
  }
  linear_ = linear;
  // Octave 0's band is the largest.
  const int band = scratch_band_rows(octave_grid(width, height, sample_step(0, config_.first_step)).y);
  if (linear_) {
    const int texels = (width + 1) * band;
    cross_linear_ =
        shared_ && shared_->width() >= texels
            ? gl::Texture::buffer_view(*shared_, texels, gl::Format::RGBA32UI, "strips_cross_linear")
            : gl::Texture::buffer(texels, gl::Format::RGBA32UI, "strips_cross_linear");
  }
  const int layers = config_.n_octave_layers + 2;
  for (int o = 0; o < config_.n_octaves; ++o) {
    HessianOctave oct;
    oct.octave = o;
    oct.step = sample_step(o, config_.first_step);
    oct.grid = octave_grid(width, height, oct.step);
    for (int g = 0; g * 4 < layers; ++g) {
      glm::ivec4 f(0);
      for (int k = 0; k < 4 && 4 * g + k < layers; ++k) f[k] = filter_size(o, 4 * g + k);
      oct.filters.push_back(f);
      const std::string suffix = "_o" + std::to_string(o) + "_g" + std::to_string(g);
      oct.det.emplace_back(oct.grid.x, oct.grid.y, gl::Format::RGBA32F, "det" + suffix);
      oct.signs.emplace_back(oct.grid.x, oct.grid.y, gl::Format::R8UI, "signs" + suffix);
    }
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      oct.targets.emplace_back(std::vector<const gl::Texture*>{&oct.det[g], &oct.signs[g]},
                               "hessian" + oct.det[g].label().substr(3));
    }
    octaves_.push_back(std::move(oct));
  }
  cross_ = gl::Texture(width + 1, band, gl::Format::RGBA32UI, "strips_cross");
  cross_target_ = gl::Framebuffer({&cross_}, "strips_cross");
}

void HessianStage::run(gl::PassRunner& runner, IntegralStage& integral_stage) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  GLSURF_EXPECTS(integral_stage.width() == width_ && integral_stage.height() == height_,
                 "the integral image must be of the configured size");
  const gl::Texture& integral = integral_stage.result();
  const glm::ivec2 image_size(width_, height_);
  const gl::Texture* integral_linear = nullptr;
  if (linear_) {
    integral_linear = integral_stage.linear_copy(runner, gl::max_buffer_texels(buffer_limit_));
    GLSURF_EXPECTS(integral_linear != nullptr, "the integral image fits a buffer texture (configure())");
  }
  for (const HessianOctave& oct : octaves_) {
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      const bool inherits = g == 0 && oct.octave > 0;  // layers copied from the octave before
      const gl::Texture& source = linear_ ? *integral_linear : integral;
      const glm::ivec2 integral_size = integral_stage.size();
      // A sample's Dxy look-ups are all in its own row of the strip: the
      // strip of a band of rows, its copy, the band's combinations.
      for (int row = 0; row < oct.grid.y; row += cross_.height()) {
        const int rows = std::min(cross_.height(), oct.grid.y - row);
        strips_cross_[inherits]
            .integral(source, integral_size)
            .filters(oct.step, oct.filters[g])
            .first_row(row)
            .draw(runner, cross_target_, {0, 0, width_ + 1, rows});
        const gl::Texture* cross = &cross_;
        if (linear_) {
          cross_linear_.copy_rows(cross_, 0, rows);
          runner.after_transfer();
          cross = &cross_linear_;
        }
        HessianMultipassPass& multipass = multipass_[inherits];
        multipass.cross(*cross, row).integral(source, integral_size);
        if (inherits) {
          const HessianOctave& finer = octaves_[static_cast<size_t>(oct.octave - 1)];
          multipass.previous(finer.det[0], finer.signs[0]);
        }
        multipass.filters(oct.step, oct.filters[g])
            .image_size(image_size)
            .draw(runner, oct.targets[g], {0, row, oct.grid.x, rows});
      }
    }
  }
  gl::check_gl_errors("hessian");
}

}  // namespace glsurf
