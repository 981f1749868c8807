#include "baseline/detector_variant.hpp"

#include "baseline/extrema_single.hpp"

namespace glsurf::baseline {

VariantSteps::VariantSteps(const gl::ShaderSource& shaders, Hessian hessian, Suppression suppression)
    : shaders_(shaders), hessian_method_(hessian), suppression_method_(suppression) {}

void VariantSteps::hessian(gl::PassRunner& runner, IntegralStage& integral, HessianStage& hessian) {
  if (hessian_method_ == Hessian::MultiPass) {
    DetectorSteps::hessian(runner, integral, hessian);
    return;
  }
  if (!single_pass_hessian_) single_pass_hessian_.emplace(shaders_);
  single_pass_hessian_->run(runner, integral, hessian);
}

void VariantSteps::suppression(gl::PassRunner& runner, const HessianStage& hessian, ExtremaStage& extrema) {
  if (suppression_method_ == Suppression::EarlyZ) {
    DetectorSteps::suppression(runner, hessian, extrema);
    return;
  }
  extrema_single_pass(runner, hessian, extrema);
}

}  // namespace glsurf::baseline
