#include "baseline/hessian_single.hpp"

#include "gl/error.hpp"

namespace glsurf::baseline {

HessianSinglePass::HessianSinglePass(const gl::ShaderSource& shaders)
    : program_(shaders, "common/fullscreen.vert", "hessian/hessian_single.frag") {}

void HessianSinglePass::run(gl::PassRunner& runner, const IntegralStage& integral,
                            HessianStage& hessian) const {
  GLSURF_EXPECTS(!hessian.octaves().empty() &&
                     hessian.octaves().front().grid ==
                         octave_grid(integral.width(), integral.height(), hessian.octaves().front().step),
                 "the Hessian stage must be configured for the integral image's size");
  const glm::ivec2 image_size(integral.width(), integral.height());
  for (const HessianOctave& oct : hessian.octaves()) {
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      runner.run("hessian_single", program_, oct.targets[g], {{"u_integral", integral.result()}},
                 {{"u_step", oct.step},
                  {"u_filters", oct.filters[g]},
                  {"u_image_size", image_size},
                  {"u_integral_size", integral.size()}});
    }
  }
  gl::check_gl_errors("hessian_single");
}

}  // namespace glsurf::baseline
