// GPU keypoint candidates: for every octave and middle layer, the samples
// whose det(H) exceeds the threshold and all 26 neighbours, moved to the peak
// of the quadratic through their 3x3x3 block (shaders/detect/extrema.frag;
// rules as src/cpu/detector.hpp).
//
// Output: the candidate atlas, one RGBA32F texture of sample-grid maps,
// (x, y, size * laplacian, response) where a keypoint was found, zero
// elsewhere. Two adjacent middle layers share a map (a sample cannot be a
// maximum in both: each dominates the other in its 3x3x3 block), layers two
// or more apart need their own: each octave has ceil(n_octave_layers / 2)
// maps, for layers {1, 2}, {3, 4}, ... Octave 0's maps lie side by side from
// the origin; the other octaves' maps are stacked in a column to their right,
// a band per octave, like a mip chain. For the default two layers: one map
// per octave, an atlas 1.5 times as wide as the image.
//
// This is the straightforward single-pass version; the separable max passes
// and early-Z rounds of Terriberry et al. are still to come.
#pragma once

#include "surf/hessian.hpp"

namespace glsurf {

struct AtlasRect {
  int octave = 0;
  int first_layer = 1;  // this map holds layers first_layer and first_layer + 1
  int x = 0, y = 0, width = 0, height = 0;
};

class ExtremaStage {
 public:
  ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  // Throws glsurf::Error if the atlas exceeds the driver's texture size.
  void configure(const HessianStage& hessian, int width, int height);
  void run(gl::PassRunner& runner, const HessianStage& hessian);

  const gl::Texture& atlas() const { return atlas_; }
  const std::vector<AtlasRect>& rects() const { return rects_; }  // octave by octave
  int maps_per_octave() const { return (config_.n_octave_layers + 1) / 2; }

 private:
  DetectorConfig config_;
  gl::Program program_;
  int width_ = 0, height_ = 0;
  std::vector<AtlasRect> rects_;
  gl::Texture atlas_;
  gl::Framebuffer target_;
};

}  // namespace glsurf
