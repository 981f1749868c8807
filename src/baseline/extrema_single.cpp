#include "baseline/extrema_single.hpp"

#include "gl/error.hpp"

namespace glsurf::baseline {

void extrema_single_pass(gl::PassRunner& runner, const HessianStage& hessian, ExtremaStage& extrema) {
  runner.clear(extrema.target(), glm::vec4(0.0f));
  for (const AtlasRect& r : extrema.rects()) {
    const HessianOctave& oct = hessian.octaves()[static_cast<size_t>(r.octave)];
    const gl::Texture* pair_det = extrema.marks_as_pair(r) ? &extrema.pair_input(runner, oct, r) : nullptr;
    extrema.interpolate(runner, oct, r, pair_det, gl::PassRunner::DepthMode::Off);
  }
  gl::check_gl_errors("extrema (single pass)");
}

}  // namespace glsurf::baseline
