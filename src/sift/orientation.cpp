#include "sift/orientation.hpp"

#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"
#include "surf/blocks.hpp"

namespace glsurf::sift {

namespace {

constexpr int kWidth = shader::kListWidth;
using blocks::rows_for;

// The largest sigma an entry can have, in octave pixels: layer s, offset 0.5.
double max_sigma(const SiftConfig& config) {
  const int s = config.n_octave_layers;
  return config.sigma * std::pow(2.0, (s + 0.5) / s);
}

}  // namespace

std::vector<glm::ivec4> octave_uniforms(const AtlasLayout& gaussian) {
  const int octaves = gaussian.images > 0 ? static_cast<int>(gaussian.rects.size()) / gaussian.images : 0;
  GLSURF_EXPECTS(octaves <= kMaxOctaves, "more octaves than the SIFT passes take");
  std::vector<glm::ivec4> uniforms(kMaxOctaves, glm::ivec4(0));
  for (int k = 0; k < octaves; ++k) uniforms[static_cast<size_t>(k)] = gaussian.rect(k, 0);
  return uniforms;
}

// A gather (shaders/sift/orientation.frag): one fragment per entry walks
// its window. Measured against a scatter, a point per entry and window
// pixel ((2 R_max + 1)^2 per entry) added by blending into the entry's run
// of 36 bins, then a pass for the peaks, with the same angles (blending
// adds in primitive order, so the same sums): on llvmpipe, 3,951 entries of
// 512 x 384 blob noise (4.3 M points), the gather took 125 ms, the scatter
// 1,190 ms (least of 5, the same run, 2 cores shared).
OrientationStage::OrientationPass::OrientationPass(const gl::ShaderSource& shaders, const SiftConfig& config)
    : Pass(shaders, "sift_orientation", "sift/orientation.frag",
           {"MAX_OCTAVES " + std::to_string(kMaxOctaves)}) {
  // A window of (2 R + 1)^2 pixels, each 4 fetches, an atan and an exp.
  const int radius = static_cast<int>(std::lround(4.5 * max_sigma(config)));
  set_work(static_cast<std::int64_t>(2 * radius + 1) * (2 * radius + 1) * 8);
}

OrientationStage::OrientationStage(const gl::ShaderSource& shaders, const SiftConfig& config)
    : orientation_(shaders, config) {}

void OrientationStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  if (capacity == capacity_) return;
  target_ = gl::Framebuffer();
  angles_ = gl::Texture();
  gl::Texture angles(kWidth, rows_for(capacity), gl::Format::RGBA32F, "sift_angles");
  gl::Framebuffer target({&angles}, "sift_angles");
  angles_ = std::move(angles);
  target_ = std::move(target);
  capacity_ = capacity;
}

void OrientationStage::run(gl::PassRunner& runner, const gl::Texture& gaussian, const AtlasLayout& layout,
                           const gl::Texture& points, const gl::Texture& scales, int count) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more entries than configured");
  if (count == 0) return;
  orientation_.gaussian(gaussian, layout)
      .list(points, scales, count)
      .draw(runner, target_, {0, 0, kWidth, rows_for(count)});
  gl::check_gl_errors("sift orientation");
}

std::vector<float> OrientationStage::read(int count) const {
  if (count == 0) return {};
  std::vector<float> angles = target_.read_f32(0, 0, 0, kWidth, rows_for(count));
  angles.resize(static_cast<size_t>(count) * 4);
  return angles;
}

}  // namespace glsurf::sift
