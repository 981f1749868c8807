// GPU Hessian responses: det(H) and trace for every octave and layer of the
// scale space (surf/keypoint.hpp), from the integral image.
//
// Layout: per octave, the sample grid ceil(W / 2^o) x ceil(H / 2^o); layers
// in groups of four, one RGBA32F texture pair per group (det_oO_gG and
// trace_oO_gG, layer 4g + k in channel k). A sample whose filter does not
// lie inside the image holds 0. Formulas and filter shapes:
// src/cpu/detector.hpp (the CPU reference computes the same numbers).
//
// This is the single-pass version (eight box sums per filter, straight from
// the integral image): the oracle for Terriberry's multi-pass shared
// differences, which are still to come.
#pragma once

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/program.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/keypoint.hpp"

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include <vector>

namespace glsurf {

struct HessianOctave {
  int octave = 0, step = 1;
  glm::ivec2 grid{0, 0};
  std::vector<glm::ivec4> filters;   // per group: sides of its 4 layers, 0 = unused
  std::vector<gl::Texture> det, trace;  // per group
  std::vector<gl::Framebuffer> targets;
};

class HessianStage {
 public:
  HessianStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  void configure(int width, int height);
  void run(gl::PassRunner& runner, const gl::Texture& integral);
  const std::vector<HessianOctave>& octaves() const { return octaves_; }

 private:
  DetectorConfig config_;
  gl::Program single_;
  int width_ = 0, height_ = 0;
  std::vector<HessianOctave> octaves_;
};

}  // namespace glsurf
