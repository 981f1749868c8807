// Baseline Hessian: det(H) and trace of every filter from its eight box sums
// looked up straight in the integral image, 32 look-ups per filter (Bay et al.
// 2008, 3.2; shaders/hessian/hessian_single.frag, timer key "hessian_single").
//
// It writes what HessianStage::run writes, into a configured HessianStage's
// own textures (det and trace per octave and group, HessianOctave::targets),
// so that everything downstream (suppression, the point list, the
// descriptors) runs unchanged on its output. Kept as the test oracle of the
// multi-pass method (tests/test_gpu_hessian.cpp) and as the baseline that
// `glsurf bench detect` times it against; not part of the glsurf library.
#pragma once

#include "gl/pass.hpp"
#include "gl/program.hpp"
#include "gl/shader_source.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"

namespace glsurf::baseline {

class HessianSinglePass {
 public:
  // Needs a current context (the program is compiled here).
  explicit HessianSinglePass(const gl::ShaderSource& shaders);
  // Every octave and group of `hessian` (configured for the integral image's
  // size) from `integral`'s latest result.
  void run(gl::PassRunner& runner, const IntegralStage& integral, HessianStage& hessian) const;

 private:
  gl::Program program_;
};

}  // namespace glsurf::baseline
