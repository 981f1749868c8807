// Baseline Hessian: det(H) and the Laplacian's sign of every filter from its eight box sums
// looked up straight in the integral image, 32 look-ups per filter (Bay et al.
// 2008, 3.2; shaders/hessian/hessian_single.frag, timer key "hessian_single").
//
// It writes what HessianStage::run writes, into a configured HessianStage's
// own textures (det and signs per octave and group, HessianOctave::targets),
// so that everything downstream (suppression, the point list, the
// descriptors) runs unchanged on its output. Kept as the test oracle of the
// multi-pass method (tests/test_gpu_hessian.cpp) and as the baseline that
// `glsurf bench detect` times it against; not part of the glsurf library.
#pragma once

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"

namespace glsurf::baseline {

class HessianSinglePass {
 public:
  // Needs a current context (the pass is compiled here).
  explicit HessianSinglePass(const gl::ShaderSource& shaders);
  // Every octave and group of `hessian` (configured for the integral image's
  // size) from `integral`'s latest result.
  void run(gl::PassRunner& runner, const IntegralStage& integral, HessianStage& hessian);

 private:
  // det(H) and the Laplacian's signs of a group's layers, each filter from its eight box sums
  // (Bay et al. 3.2; hessian/hessian_single.frag).
  class BoxSumsPass : public gl::Pass {
   public:
    explicit BoxSumsPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "hessian_single", "hessian/hessian_single.frag") {}
    // The integral image (2-D) and its size in values, W + 1 x H + 1.
    BoxSumsPass& integral(const gl::Texture& integral, glm::ivec2 size) {
      input("u_integral", integral);
      return uniform("u_integral_size", size), *this;
    }
    // The octave's sampling step and the sides of the group's four layers (0 = unused).
    BoxSumsPass& filters(int step, glm::ivec4 sides) {
      uniform("u_step", step);
      return uniform("u_filters", sides), *this;
    }
    BoxSumsPass& image_size(glm::ivec2 size) { return uniform("u_image_size", size), *this; }
  };

  BoxSumsPass box_sums_;
};

}  // namespace glsurf::baseline
