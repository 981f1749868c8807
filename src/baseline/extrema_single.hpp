// Baseline suppression: the extrema pass (extrema/interpolate.frag, timer key
// "extrema_interpolate") on every cell of every map, with no early-Z marks
// (Terriberry et al. 2008, III-B.2 without the mark pass).
//
// It writes what ExtremaStage::run writes, into a configured ExtremaStage's
// candidate atlas, through the stage's own interpolation step
// (ExtremaStage::interpolate with depth testing off), so the keypoints must
// be the same. Kept as the test oracle of early-Z (tests/test_gpu_detector.cpp)
// and as the baseline that `glsurf bench detect` times it against; not part
// of the glsurf library.
#pragma once

#include "gl/pass.hpp"
#include "surf/extrema.hpp"
#include "surf/hessian.hpp"

namespace glsurf::baseline {

// `extrema` configured for `hessian`'s size; leaves its marks unwritten.
void extrema_single_pass(gl::PassRunner& runner, const HessianStage& hessian, ExtremaStage& extrema);

}  // namespace glsurf::baseline
