// GPU keypoint candidates: for every octave and middle layer, the samples
// whose det(H) exceeds the threshold and all 26 neighbours, moved to the peak
// of the quadratic through their 3x3x3 block (shaders/detect/extrema.frag;
// rules as src/cpu/detector.hpp).
//
// Output per (octave, layer l = 1..n_octave_layers): an RGBA32F texture on the
// octave's sample grid, (x, y, size * laplacian, response) where a keypoint
// was found and zero elsewhere. A sample is a keypoint in at most one layer
// of its octave (each layer's maximum dominates the same sample in the
// layers beside it).
//
// This is the straightforward single-pass version; the separable max passes
// and early-Z rounds of Terriberry et al. are still to come.
#pragma once

#include "surf/hessian.hpp"

namespace glsurf {

struct CandidateMap {
  int octave = 0, layer = 1;
  gl::Texture keypoints;
  gl::Framebuffer target;
};

class ExtremaStage {
 public:
  ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  void configure(const HessianStage& hessian, int width, int height);
  void run(gl::PassRunner& runner, const HessianStage& hessian);
  const std::vector<CandidateMap>& maps() const { return maps_; }

 private:
  DetectorConfig config_;
  gl::Program program_;
  int width_ = 0, height_ = 0;
  std::vector<CandidateMap> maps_;
};

}  // namespace glsurf
