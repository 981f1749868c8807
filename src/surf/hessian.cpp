#include "surf/hessian.hpp"

#include "gl/error.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace glsurf {

std::vector<float> read_map(const gl::Texture& map, glm::ivec2 grid) {
  GLSURF_EXPECTS(map.is_array() && map.layers() == 4 && map.width() == planes_width(grid.x) && map.height() == grid.y,
                 "read_map: '" + map.label() + "' is not a map of a " + std::to_string(grid.x) + "x" +
                     std::to_string(grid.y) + " grid");
  const std::vector<float> planes = map.download_f32();
  std::vector<float> out(static_cast<size_t>(grid.x) * grid.y * 4);
  for (int y = 0; y < grid.y; ++y) {
    for (int x = 0; x < grid.x; ++x) {
      const size_t from = ((static_cast<size_t>(x & 3) * grid.y + y) * map.width() + (x >> 2)) * 4;
      const size_t to = (static_cast<size_t>(y) * grid.x + x) * 4;
      for (int k = 0; k < 4; ++k) out[to + k] = planes[from + k];
    }
  }
  return out;
}

HessianStage::HessianStage(const gl::ShaderSource& shaders, const DetectorConfig& config, HessianMethod method)
    : config_(config),
      method_(method),
      shaders_(shaders),
      single_(shaders, "common/fullscreen.vert", "hessian/hessian_single.frag") {
  GLSURF_EXPECTS(config.n_octaves >= 1 && config.n_octave_layers >= 1 && config.first_step >= 1,
                 "invalid detector configuration");
}

bool HessianStage::uses(bool inherits, bool step_one) const {
  const int groups = (config_.n_octave_layers + 2 + 3) / 4;
  for (int o = 0; o < config_.n_octaves; ++o) {
    for (int g = 0; g < groups; ++g) {
      if ((g == 0 && o > 0) == inherits && (sample_step(o, config_.first_step) == 1) == step_one) return true;
    }
  }
  return false;
}

void HessianStage::configure(int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0, "image size must be positive");
  width_ = width;
  height_ = height;
  octaves_.clear();
  cross_linear_ = gl::Texture();
  if (method_ == HessianMethod::MultiPass) {
    const long long integral_texels = integral_linear_texels(width, height);
    const int limit = gl::max_buffer_texels(buffer_limit_);
    // The strip's copy, four planes of packed_width(W) texels by at most H
    // rows, is no larger than the integral image's (R32UI) copy.
    const bool linear = integral_texels <= limit;
    if (linear != linear_ || !compiled_) {  // the programs this configuration uses, for the kind of input
      for (int inherits = 0; inherits < 2; ++inherits) {
        std::vector<std::string> defines{"FIRST_LAYER " + std::to_string(inherits ? inherited_layers() : 0)};
        if (linear) defines.push_back("LINEAR_FETCH");
        MultiPassPrograms& p = passes_[inherits];
        p = MultiPassPrograms();
        bool any = false;
        for (int step_one = 0; step_one < 2; ++step_one) {
          if (!uses(inherits == 1, step_one == 1)) continue;
          std::vector<std::string> d = defines;
          if (step_one) d.push_back("STEP_ONE");
          p.combine[step_one] = gl::Program(shaders_, "common/fullscreen.vert", "hessian/hessian_multipass.frag", d);
          any = true;
        }
        if (any) p.strips_cross = gl::Program(shaders_, "common/fullscreen.vert", "hessian/strips_cross.frag", defines);
      }
      compiled_ = true;
    }
    linear_ = linear;
    if (linear_) {
      // Octave 0's strip is the largest: its grid's rows of the integral
      // image's texels, four planes.
      const int rows = octave_grid(width, height, sample_step(0, config_.first_step)).y;
      cross_linear_ = gl::Texture::buffer(4 * packed_width(width) * rows, gl::Format::RGBA32UI,
                                          "strips_cross_linear");
    }
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
      const int planes = planes_width(oct.grid.x);
      oct.det.push_back(gl::Texture::array(planes, oct.grid.y, 4, gl::Format::RGBA32F, "det" + suffix));
      oct.trace.push_back(gl::Texture::array(planes, oct.grid.y, 4, gl::Format::RGBA32F, "trace" + suffix));
    }
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      oct.targets.emplace_back(std::vector<const gl::Texture*>{&oct.det[g], &oct.trace[g]},
                               "hessian" + oct.det[g].label().substr(3));
    }
    if (method_ == HessianMethod::MultiPass) {
      const std::string suffix = "_o" + std::to_string(o);
      oct.cross = gl::Texture::array(packed_width(width), oct.grid.y, 4, gl::Format::RGBA32UI,
                                     "strips_cross" + suffix);
      oct.cross_target = gl::Framebuffer({&oct.cross}, "strips_cross" + suffix);
    }
    octaves_.push_back(std::move(oct));
  }
}

void HessianStage::run(gl::PassRunner& runner, IntegralStage& integral_stage) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  GLSURF_EXPECTS(integral_stage.width() == width_ && integral_stage.height() == height_,
                 "the integral image must be of the configured size");
  const gl::Texture& integral = integral_stage.result();
  const glm::ivec2 image_size(width_, height_);
  // With buffer textures: the integral image's copy read as RGBA32UI (the
  // strips, and the combination at step 1) and as R32UI (the combination at
  // other steps, whose lanes each read one value).
  const gl::Texture *integral_texels = nullptr, *integral_values = nullptr;
  if (linear_) {
    const int limit = gl::max_buffer_texels(buffer_limit_);
    integral_texels = integral_stage.linear_texels(runner, limit);
    integral_values = integral_stage.linear_copy(runner, limit);
    GLSURF_EXPECTS(integral_texels != nullptr, "the integral image fits a buffer texture (configure())");
  }
  for (const HessianOctave& oct : octaves_) {
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      if (method_ == HessianMethod::SinglePass) {
        runner.run("hessian_single", single_, oct.targets[g], {{"u_integral", integral}},
                   {{"u_step", oct.step},
                    {"u_filters", oct.filters[g]},
                    {"u_image_size", image_size},
                    {"u_integral_size", integral_stage.size()}});
        continue;
      }
      const bool inherits = g == 0 && oct.octave > 0;  // layers copied from the octave before
      const MultiPassPrograms& programs = passes_[inherits];
      const bool step_one = oct.step == 1;
      const gl::Program& combine = programs.combine[step_one];
      const glm::ivec2 integral_size = integral_stage.size();
      runner.run("hessian_strips_cross", programs.strips_cross, oct.cross_target,
                 {{"u_integral", linear_ ? *integral_texels : integral}},
                 {{"u_step", oct.step}, {"u_filters", oct.filters[g]}, {"u_integral_size", integral_size}});
      const gl::Texture* cross = &oct.cross;
      const gl::Texture* source = &integral;
      if (linear_) {
        cross_linear_.copy_rows(oct.cross, 0, oct.cross.height());
        runner.after_transfer();
        cross = &cross_linear_;
        source = step_one ? integral_texels : integral_values;
      }
      if (!inherits) {
        runner.run("hessian_multipass", combine, oct.targets[g],
                   {{"u_cross", *cross}, {"u_integral", *source}},
                   {{"u_step", oct.step},
                    {"u_filters", oct.filters[g]},
                    {"u_image_size", image_size},
                    {"u_integral_size", integral_size}});
        continue;
      }
      const HessianOctave& finer = octaves_[static_cast<size_t>(oct.octave - 1)];
      runner.run("hessian_multipass", combine, oct.targets[g],
                 {{"u_cross", *cross},
                  {"u_integral", *source},
                  {"u_previous_det", finer.det[0]},
                  {"u_previous_trace", finer.trace[0]}},
                 {{"u_step", oct.step},
                  {"u_filters", oct.filters[g]},
                  {"u_image_size", image_size},
                  {"u_integral_size", integral_size}});
    }
  }
  gl::check_gl_errors("hessian");
}

}  // namespace glsurf
