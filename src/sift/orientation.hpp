// GPU SIFT orientations of a point list (docs/notes/sift.md, Orientation;
// the CPU reference: cpu::sift::orientations), one pass:
//
//   orientation      per list entry, the 36-bin gradient histogram of its
//                    window on its Gaussian image, smoothed, and its peaks
//                    -> up to 4 angles per entry (RGBA32F, degrees, highest
//                    peak first, -1 where none)
//
// Inputs (docs/notes/sift.md, GPU data between stages): the Gaussian images
// of every octave in one packed atlas (sift::atlas_layout(octaves, s + 3, kPack)),
// and the point list, 1024 entries to a row, as two RGBA32F textures:
// (x, y, sigma, D^) in octave pixels and (k, layer, offset_s, 0).
#pragma once

#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "glsurf/detector.hpp"
#include "sift/layout.hpp"

namespace glsurf::sift {

// Octave positions the passes that read the Gaussian atlas take.
constexpr int kMaxOctaves = 32;

// The atlas as the shaders read it (shaders/sift/orientation_gradient.glsl):
// per octave position, (x, y) of its image 0 and its width and height.
std::vector<glm::ivec4> octave_uniforms(const AtlasLayout& gaussian);

class OrientationStage {
 public:
  OrientationStage(const gl::ShaderSource& shaders, const SiftConfig& config);
  // Bytes per list entry of capacity that configure() allocates.
  static double bytes_per_entry() { return 16.0; }
  void configure(int capacity);
  int capacity() const { return capacity_; }  // 0 before configure()

  // Orientations of list entries 0 .. count - 1: `points` (x, y, sigma, D^)
  // and `scales` (k, layer, offset_s, 0), on the Gaussian images of
  // `gaussian`, laid out as `layout` says.
  void run(gl::PassRunner& runner, const gl::Texture& gaussian, const AtlasLayout& layout,
           const gl::Texture& points, const gl::Texture& scales, int count);

  // Up to 4 angles per list entry (RGBA32F, 1024 wide, a texel per entry).
  const gl::Texture& angles() const { return angles_; }
  // Reads back `count` entries' 4 values each (-1: none).
  std::vector<float> read(int count) const;

 private:
  class OrientationPass : public gl::Pass {
   public:
    OrientationPass(const gl::ShaderSource& shaders, const SiftConfig& config);
    OrientationPass& gaussian(const gl::Texture& atlas, const AtlasLayout& layout) {
      input("u_gaussian", atlas);
      return uniform("u_octaves", octave_uniforms(layout)), *this;
    }
    OrientationPass& list(const gl::Texture& points, const gl::Texture& scales, int count) {
      input("u_points", points);
      input("u_scales", scales);
      return uniform("u_count", count), *this;
    }
  };

  OrientationPass orientation_;
  int capacity_ = 0;
  gl::Texture angles_;
  gl::Framebuffer target_;
};

}  // namespace glsurf::sift
