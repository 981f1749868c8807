// GpuDetector with baseline steps in place of the production ones
// (surf/detector_steps.hpp): the single-pass Hessian
// (baseline/hessian_single.hpp) and/or suppression without early-Z marks
// (baseline/extrema_single.hpp). `glsurf bench detect` times whole frames of
// each combination; the tests check that they find the CPU's keypoints.
//
//   GpuDetector detector(ctx, config, shaders,
//                        std::make_unique<baseline::VariantSteps>(shaders, baseline::Hessian::SinglePass,
//                                                                 baseline::Suppression::EarlyZ));
#pragma once

#include <optional>

#include "baseline/hessian_single.hpp"
#include "gl/shader_source.hpp"
#include "surf/detector_steps.hpp"

namespace glsurf::baseline {

enum class Hessian { MultiPass, SinglePass };   // MultiPass: HessianStage (production)
enum class Suppression { EarlyZ, SinglePass };  // EarlyZ: ExtremaStage (production)

class VariantSteps : public DetectorSteps {
 public:
  VariantSteps(const gl::ShaderSource& shaders, Hessian hessian, Suppression suppression);
  void hessian(gl::PassRunner& runner, IntegralStage& integral, HessianStage& hessian) override;
  void suppression(gl::PassRunner& runner, const HessianStage& hessian, ExtremaStage& extrema) override;

 private:
  gl::ShaderSource shaders_;
  Hessian hessian_method_;
  Suppression suppression_method_;
  // Compiled at the first frame, when GpuDetector has made its context current.
  std::optional<HessianSinglePass> single_pass_hessian_;
};

}  // namespace glsurf::baseline
