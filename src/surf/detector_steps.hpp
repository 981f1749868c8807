// The seam between GpuDetector and the baselines (src/baseline/, a library of
// its own that only the tests and `glsurf bench` link): the two steps of a
// detection that have baseline variants, Hessian responses and suppression.
//
// GpuDetector runs its steps through a DetectorSteps object. This base class
// runs the production stages, and GpuDetector uses it unless it is given
// another; a baseline derives from it and overrides a step, writing the
// same textures (those of the stage it stands in for) by other passes, so
// that everything before and after runs unchanged and a benchmark times
// whole frames of either. The stages expose what a baseline needs for that
// (HessianStage::octaves, ExtremaStage::target and interpolate).
#pragma once

#include "gl/pass.hpp"
#include "surf/extrema.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"

namespace glsurf {

class DetectorSteps {
 public:
  virtual ~DetectorSteps() = default;
  // det(H) and the Laplacian's signs of every octave into `hessian`'s textures, from the
  // integral image.
  virtual void hessian(gl::PassRunner& runner, IntegralStage& integral, HessianStage& hessian) {
    hessian.run(runner, integral);
  }
  // The candidate atlas of `extrema` from `hessian`'s det(H).
  virtual void suppression(gl::PassRunner& runner, const HessianStage& hessian, ExtremaStage& extrema) {
    extrema.run(runner, hessian);
  }
};

}  // namespace glsurf
