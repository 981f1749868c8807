// GPU SIFT scale space (Lowe 2004, docs/notes/sift.md "Scale space"): the
// Gaussian images of every octave in one atlas and their differences in
// another (layout.hpp), both packed four pixels of a row to an RGBA32F
// texel (shaders/sift/packed.glsl), drawn by fragment passes, four pixels a
// fragment:
//
//   sift_base           the R8 image as 0..1 floats into the Gaussian atlas's
//                       cell (0, 1), doubled (bilinear, the last column and
//                       row replicated) when first_octave is -1
//   sift_blur_rows      one axis of a separable Gaussian (edges replicated),
//   sift_blur_columns   rows from an atlas cell into the scratch (RGBA32F, packed
//                       as the atlas: sift/blur.frag), columns
//                       from the scratch (or its buffer-texture copy, where
//                       the driver's buffer textures hold it) into the next
//                       atlas cell: the base blur into cell (0, 0), then
//                       level i = level i - 1 blurred incrementally, i = 1 ..
//                       s + 2
//   sift_downsample     every second pixel of octave k - 1's level s into the
//                       scratch, copied into octave k's cell 0 by a columns
//                       pass with the one-tap kernel
//   sift_dog            D_i = L_{i+1} - L_i into the DoG atlas
//
// The weights are cpu::sift::gaussian_kernel's floats, summed from -r up as
// the CPU reference sums them, so the images agree with it to float
// rounding (bit for bit on llvmpipe; tests/test_gpu_sift.cpp). Each blur
// program has its radius compiled in and takes its weights as uniforms
// (faster on llvmpipe than from a texture: sift/blur.frag).
//
// configure(width, height) allocates every texture once per size; run()
// allocates nothing.
#pragma once

#include <string>
#include <vector>

#include "cpu/sift.hpp"
#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/texture.hpp"
#include "sift/layout.hpp"

namespace glsurf::sift {

// The widest blur the passes take: its 2 r + 1 weights are uniforms, within
// the 1,024 components OpenGL 3.3 promises a fragment shader (sigma 1.6
// needs r = 13; s = 1 layer, r = 45).
constexpr int kMaxBlurRadius = 475;

class ScaleSpaceStage {
 public:
  // Throws glsurf::Error when a blur of `config` is wider than kMaxBlurRadius.
  ScaleSpaceStage(const gl::ShaderSource& shaders, const SiftConfig& config);

  // Why the atlases of a width x height image do not fit the driver's
  // textures, or "" (allocates nothing).
  static std::string size_problem(int width, int height, const SiftConfig& config);
  // Allocates the image, scratch and atlas textures for width x height
  // (throws glsurf::Error where size_problem says why not).
  void configure(int width, int height);
  // Caps the buffer textures below GL_MAX_TEXTURE_BUFFER_SIZE before
  // configure() (tests: 0 reads the scratch as a 2-D texture, as for an
  // image too large for the driver's buffer textures; < 0: the driver's limit).
  void limit_buffer_texels(int texels) { buffer_limit_ = texels; }
  // Uploads `image` (the configured size) and draws every level and DoG.
  void run(gl::PassRunner& runner, const GrayImage& image);

  const std::vector<cpu::sift::OctaveSize>& octaves() const { return octaves_; }
  const AtlasLayout& gaussian_layout() const { return gaussian_layout_; }
  const AtlasLayout& dog_layout() const { return dog_layout_; }
  // The atlases, packed (layout.hpp): RGBA32F, size.x / kPack texels wide.
  const gl::Texture& gaussian() const { return gaussian_; }
  const gl::Texture& dog() const { return dog_; }
  const gl::Framebuffer& gaussian_target() const { return gaussian_target_; }
  const gl::Framebuffer& dog_target() const { return dog_target_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  // sift_base: the image into a cell (shaders/sift/base.frag).
  class BasePass : public gl::Pass {
   public:
    BasePass() = default;
    BasePass(const gl::ShaderSource& shaders, bool doubled)
        : Pass(shaders, "sift_base", "sift/base.frag",
               doubled ? std::vector<std::string>{"DOUBLE"} : std::vector<std::string>{}) {}
    BasePass& image(const gl::Texture& r8) { return input("u_image", r8), *this; }
    BasePass& size(glm::ivec2 pixels) { return uniform("u_size", pixels), *this; }
    BasePass& origin(glm::ivec2 texel) { return uniform("u_origin", texel), *this; }
  };
  // sift_blur_rows / sift_blur_columns: one axis of one kernel (its weights
  // compiled in) from a rectangle of the source into the region drawn.
  class BlurPass : public gl::Pass {
   public:
    BlurPass() = default;
    // `linear`: columns reading the scratch's buffer copy.
    BlurPass(const gl::ShaderSource& shaders, bool rows, const std::vector<float>& weights, bool linear);
    BlurPass& source(const gl::Texture& texture, glm::ivec4 rect) {
      input("u_source", texture);
      return uniform("u_source_rect", rect), *this;
    }
    BlurPass& origin(glm::ivec2 target) { return uniform("u_origin", target), *this; }
    // The kernel's weights (given to the constructor).
    BlurPass& weights() { return uniform("u_weights", packed_), *this; }

   private:
    std::vector<glm::ivec4> packed_;  // four float bit patterns to an ivec4
  };
  // sift_downsample: every second pixel of a rectangle (shaders/sift/downsample.frag).
  class DownsamplePass : public gl::Pass {
   public:
    DownsamplePass() = default;
    explicit DownsamplePass(const gl::ShaderSource& shaders)
        : Pass(shaders, "sift_downsample", "sift/downsample.frag") {}
    DownsamplePass& source(const gl::Texture& texture, glm::ivec4 rect) {
      input("u_source", texture);
      return uniform("u_source_rect", rect), *this;
    }
  };
  // sift_dog: one difference (shaders/sift/dog.frag).
  class DogPass : public gl::Pass {
   public:
    DogPass() = default;
    explicit DogPass(const gl::ShaderSource& shaders) : Pass(shaders, "sift_dog", "sift/dog.frag") {}
    // The Gaussian atlas and where L_i and L_{i+1} start in it.
    DogPass& gaussian(const gl::Texture& atlas, glm::ivec2 lower, glm::ivec2 upper) {
      input("u_gaussian", atlas);
      uniform("u_lower", lower);
      return uniform("u_upper", upper), *this;
    }
    DogPass& origin(glm::ivec2 cell) { return uniform("u_origin", cell), *this; }
  };

  // One blur: rows of `source` (rect) into the scratch, columns into the
  // Gaussian atlas at `target`.
  void blur(gl::PassRunner& runner, int kernel, const gl::Texture& source, glm::ivec4 source_rect,
            glm::ivec4 target);
  // The columns pass alone: the scratch (target's size) into `target`.
  void columns(gl::PassRunner& runner, int kernel, glm::ivec4 target);

  SiftConfig config_;
  gl::ShaderSource shaders_;  // the columns passes are built for the kind of scratch
  std::vector<std::vector<float>> kernels_;
  int buffer_limit_ = -1;
  bool linear_ = false;
  BasePass base_;
  // [kernel]: 0 the base blur, i = 1 .. s + 2 level i's increment, s + 3 the
  // one-tap copy (columns only).
  std::vector<BlurPass> rows_, columns_;
  DownsamplePass downsample_;
  DogPass dog_pass_;

  int width_ = 0, height_ = 0;
  std::vector<cpu::sift::OctaveSize> octaves_;
  AtlasLayout gaussian_layout_, dog_layout_;
  gl::Texture image_, scratch_, scratch_linear_, gaussian_, dog_;
  gl::Framebuffer scratch_target_, gaussian_target_, dog_target_;
};

}  // namespace glsurf::sift
