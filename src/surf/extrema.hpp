// GPU keypoint candidates: for every octave and middle layer, the samples
// whose det(H) exceeds the threshold and all 26 neighbours, moved to the peak
// of the quadratic through their 3x3x3 block (shaders/detect/extrema.frag;
// rules as src/cpu/detector.hpp).
//
// Output: the candidate atlas, one RGBA32F texture holding every octave's
// sample grid side by side (octave 0 at the origin, octaves 1.. stacked in a
// column to its right, like a mip chain): (x, y, size * laplacian, response)
// where a keypoint was found, zero elsewhere. The layers of an octave share
// its map: a sample is a keypoint in at most one layer.
//
// This is the straightforward single-pass version; the separable max passes
// and early-Z rounds of Terriberry et al. are still to come.
#pragma once

#include "surf/hessian.hpp"

namespace glsurf {

struct AtlasRect {
  int octave = 0;
  int x = 0, y = 0, width = 0, height = 0;
};

class ExtremaStage {
 public:
  ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  void configure(const HessianStage& hessian, int width, int height);
  void run(gl::PassRunner& runner, const HessianStage& hessian);

  const gl::Texture& atlas() const { return atlas_; }
  const std::vector<AtlasRect>& rects() const { return rects_; }  // one per octave

 private:
  DetectorConfig config_;
  gl::Program program_;
  int width_ = 0, height_ = 0;
  std::vector<AtlasRect> rects_;
  gl::Texture atlas_;
  gl::Framebuffer target_;
};

}  // namespace glsurf
