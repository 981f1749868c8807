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
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"

namespace glsurf {

class SelectStage {
 public:
  explicit SelectStage(const gl::ShaderSource& shaders);
  // Returns the state texture (valid until the next run).
  const gl::Texture& run(gl::PassRunner& runner, const gl::Texture& atlas, int wanted);

 private:
  // One round's digit of each candidate that matches the digits chosen so
  // far, scattered into the bins (select/histogram.vert, .frag).
  class HistogramPass : public gl::Pass {
   public:
    explicit HistogramPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "select_histogram", "select/histogram.frag", {}, "select/histogram.vert") {}
    HistogramPass& candidates(const gl::Texture& atlas) { return input("u_atlas", atlas), *this; }
    HistogramPass& state(const gl::Texture& state) { return input("u_state", state), *this; }
    // Round `first` (no digit chosen yet), the digit's lowest bit and width.
    HistogramPass& round(bool first, int shift, int bits) {
      uniform("u_first", first ? 1 : 0);
      uniform("u_shift", shift);
      return uniform("u_digit_bits", bits), *this;
    }
  };
  // The digit of the N-th strongest, from the bins, into the next state
  // (select/choose.frag).
  class ChoosePass : public gl::Pass {
   public:
    explicit ChoosePass(const gl::ShaderSource& shaders)
        : Pass(shaders, "select_choose", "select/choose.frag") {}
    ChoosePass& bins(const gl::Texture& histogram) { return input("u_histogram", histogram), *this; }
    ChoosePass& state(const gl::Texture& state) { return input("u_state", state), *this; }
    ChoosePass& wanted(int n) { return uniform("u_wanted", static_cast<unsigned>(n)), *this; }
    ChoosePass& round(bool first, int shift, int bits) {
      uniform("u_first", first ? 1 : 0);
      uniform("u_shift", shift);
      return uniform("u_digit_bits", bits), *this;
    }
  };

  HistogramPass histogram_;
  ChoosePass choose_;
  gl::Texture bins_;
  gl::Framebuffer bins_target_;
  gl::Texture state_[2];
  gl::Framebuffer state_target_[2];
};

}  // namespace glsurf
