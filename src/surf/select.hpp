// GPU choice of the N strongest keypoints, without reading candidates back:
// a radix selection on the bit patterns of the responses (positive floats
// order as their bits do), in three rounds of 12, 12 and 8 bits. Each round
// scatters every candidate of the atlas into a 4096-bin histogram of its
// digit (points with additive blending, select/histogram.vert), restricted to
// the candidates that match the digits chosen so far; then one 1x1 pass
// (select/choose.frag) walks the bins from the top and fixes the digit of the
// N-th strongest. The result stays on the GPU: a 1x1 RGBA32UI state whose x
// is the N-th largest response's bits, which the HistoPyramid's SELECT
// variant uses as its threshold (compact.hpp). Exact ties with the N-th
// response are all kept; the caller trims them after sorting. The bins are
// R32F, exact while a bin counts fewer than 2^24 candidates; not checked.
// Uniform noise gives keypoints at 2.1 % of its pixels at the default
// threshold (2048 x 2048, CPU reference): about 5.6 million on the largest
// image, 16384 x 16384, in all, spread over many bins.
#pragma once

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/program.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"

namespace glsurf {

class SelectStage {
 public:
  explicit SelectStage(const gl::ShaderSource& shaders);
  // Returns the state texture (valid until the next run).
  const gl::Texture& run(gl::PassRunner& runner, const gl::Texture& atlas, int wanted);

 private:
  gl::Program histogram_, choose_;
  gl::Texture bins_;
  gl::Framebuffer bins_target_;
  gl::Texture state_[2];
  gl::Framebuffer state_target_[2];
};

}  // namespace glsurf
