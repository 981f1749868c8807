#include "baseline/hessian_single.hpp"

#include "gl/error.hpp"

namespace glsurf::baseline {

HessianSinglePass::HessianSinglePass(const gl::ShaderSource& shaders) : box_sums_(shaders) {}

void HessianSinglePass::run(gl::PassRunner& runner, const IntegralStage& integral, HessianStage& hessian) {
  GLSURF_EXPECTS(!hessian.octaves().empty() &&
                     hessian.octaves().front().grid ==
                         octave_grid(integral.width(), integral.height(), hessian.octaves().front().step),
                 "the Hessian stage must be configured for the integral image's size");
  const glm::ivec2 image_size(integral.width(), integral.height());
  for (const HessianOctave& oct : hessian.octaves()) {
    for (size_t g = 0; g < oct.filters.size(); ++g) {
      box_sums_.integral(integral.result(), integral.size())
          .filters(oct.step, oct.filters[g])
          .image_size(image_size)
          .draw(runner, oct.targets[g]);
    }
  }
  gl::check_gl_errors("hessian_single");
}

}  // namespace glsurf::baseline
