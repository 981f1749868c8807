// GPU Hessian responses: det(H) and the Laplacian's sign for every octave and layer of the
// scale space (surf/keypoint.hpp), from the integral image.
//
// Layout: per octave, the sample grid ceil(W / step) x ceil(H / step), step =
// sample_step(o, first_step) (2^o by default); layers in groups of four, a
// texture pair per group: det_oO_gG (RGBA32F, layer 4g + k in channel k) and
// signs_oO_gG (R8UI, bit k set where layer 4g + k's trace Dxx + Dyy is
// negative: the Laplacian -1; only its sign is used, and the 16 bytes a sample
// of an RGBA32F trace were the largest item of host memory on llvmpipe after
// det(H), docs/notes/memory.md). A sample whose filter does not lie inside the image holds 0. Formulas and
// filter shapes: src/cpu/detector.hpp (the CPU reference computes the same numbers).
//
// Method: shared strip differences in the spirit of Terriberry et al. 2008
//     (eqs. 14-17): per octave, one pass writes for every
//     integral column and sample row the differences that every Dxy square
//     pair of the row needs (hessian/strips_cross.frag), and a second
//     combines them with the Dxx and Dyy lobes' differences, which it forms
//     from the integral image itself: 20 look-ups per filter, a few shared
//     (hessian_multipass.frag). Passes of their own for the lobes' strips,
//     as Terriberry has, cost llvmpipe more than the look-ups they save (with
//     their buffer copies; docs/notes/hessian.md). Where the driver's
//     buffer textures hold the integral image, the passes read it and the
//     strip from buffer-texture copies (common/linear_fetch.glsl), which
//     llvmpipe fetches from faster than from 2-D textures. Since a sample's
//     Dxy look-ups are all in its own row of the strip, both passes run in
//     bands of sample rows (scratch_band_rows: an eighth of octave 0's, at
//     least 256), the strip of a band, its copy, then the band's
//     combinations: one strip texture of a band's rows, and one copy of it,
//     serve every octave, group and band in turn.
//     After the first octave, layers 0 and 1 of the first group are layers 1
//     and 3 of the octave before (the same filters, at every other sample of
//     its grid), copied rather than computed (layer 0 alone with one layer
//     per octave): with the default two layers per octave that halves the
//     strips and combinations of those octaves.
// The baseline, eight box sums per filter straight from the integral image
// (Bay et al. 3.2), is baseline/hessian_single.hpp: it writes the same
// responses into this stage's textures (octaves()).
#pragma once

#include <algorithm>
#include <glm/vec2.hpp>
#include <glm/vec4.hpp>
#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/integral.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

// The sample grid of an octave sampled every `step` pixels: ceil(W / step) x ceil(H / step).
inline glm::ivec2 octave_grid(int width, int height, int step) {
  return {(width - 1) / step + 1, (height - 1) / step + 1};
}

struct HessianOctave {
  int octave = 0, step = 1;
  glm::ivec2 grid{0, 0};
  std::vector<glm::ivec4> filters;       // per group: sides of its 4 layers, 0 = unused
  std::vector<gl::Texture> det, signs;   // per group
  std::vector<gl::Framebuffer> targets;  // per group: det and signs
};

class HessianStage {
 public:
  HessianStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  void configure(int width, int height);
  // From the integral stage's latest result (and, with buffer textures, its
  // linear_copy(), which the descriptors' quads share).
  void run(gl::PassRunner& runner, IntegralStage& integral);
  // Caps the buffer textures below GL_MAX_TEXTURE_BUFFER_SIZE before
  // configure() (tests: 0 keeps every input 2-D, as for an image too large
  // for the driver's buffer textures).
  void limit_buffer_texels(int texels) { buffer_limit_ = texels; }
  // Makes the buffer copy of the cross strip a view of `storage` (gl::Texture::buffer_view,
  // RGBA32UI) where it is large enough, instead of a buffer of its own: the
  // detector lends one buffer to the Hessian, suppression and the quads, which
  // fill and read it in turn. nullptr: a buffer of its own. Drops the
  // view made before: configure() next.
  void share_buffer(const gl::Texture* storage) {
    shared_ = storage;
    cross_linear_ = gl::Texture();
    width_ = height_ = 0;
  }
  const std::vector<HessianOctave>& octaves() const { return octaves_; }

 private:
  DetectorConfig config_;
  gl::ShaderSource shaders_;
  // filter_size(o, k) == filter_size(o - 1, 2k + 1): after the first octave,
  // layers 0 .. inherited_layers()-1 are layers 1 and 3 of the octave before.
  int inherited_layers() const { return std::min(2, (config_.n_octave_layers + 2) / 2); }
  // The passes read their inputs as buffer textures with `linear`
  // (LINEAR_FETCH); layers below `first_layer` are copied from the octave
  // before (FIRST_LAYER).
  static std::vector<std::string> multipass_defines(int first_layer, bool linear);
  // For every integral column and sample row, the differences that the Dxy
  // square pairs of the row's filters share (Terriberry eqs. 14-15).
  class StripsCrossPass : public gl::Pass {
   public:
    StripsCrossPass() = default;
    StripsCrossPass(const gl::ShaderSource& shaders, int first_layer, bool linear)
        : Pass(shaders, "hessian_strips_cross", "hessian/strips_cross.frag",
               multipass_defines(first_layer, linear)) {
      set_work(4 * 4);  // four layers, about four integral fetches each
    }
    // The integral image (or its linear copy) and its size in values, W + 1 x H + 1.
    StripsCrossPass& integral(const gl::Texture& integral, glm::ivec2 size) {
      input("u_integral", integral);
      return uniform("u_integral_size", size), *this;
    }
    // The octave's sampling step and the sides of the group's four layers (0 = unused).
    StripsCrossPass& filters(int step, glm::ivec4 sides) {
      uniform("u_step", step);
      return uniform("u_filters", sides), *this;
    }
    // The sample row that the target's row 0 holds.
    StripsCrossPass& first_row(int row) { return uniform("u_first_row", row), *this; }
  };
  // det(H) and the Laplacian's signs of a group's layers: the cross strip combined with the
  // Dxx and Dyy lobe differences formed from the integral image (the
  // method's second pass); layers below the first copied from the octave before.
  class HessianMultipassPass : public gl::Pass {
   public:
    HessianMultipassPass() = default;
    HessianMultipassPass(const gl::ShaderSource& shaders, int first_layer, bool linear)
        : Pass(shaders, "hessian_multipass", "hessian/hessian_multipass.frag",
               multipass_defines(first_layer, linear)) {
      set_work(4 * 12);  // four layers, about twelve fetches each
    }
    // The cross strip of a band of sample rows, from `first_row` on.
    HessianMultipassPass& cross(const gl::Texture& strip, int first_row) {
      input("u_cross", strip);
      return uniform("u_cross_first_row", first_row), *this;
    }
    HessianMultipassPass& integral(const gl::Texture& integral, glm::ivec2 size) {
      input("u_integral", integral);
      return uniform("u_integral_size", size), *this;
    }
    // With a first layer above 0: the first group of the octave before.
    HessianMultipassPass& previous(const gl::Texture& det, const gl::Texture& signs) {
      input("u_previous_det", det);
      return input("u_previous_signs", signs), *this;
    }
    HessianMultipassPass& filters(int step, glm::ivec4 sides) {
      uniform("u_step", step);
      return uniform("u_filters", sides), *this;
    }
    HessianMultipassPass& image_size(glm::ivec2 size) { return uniform("u_image_size", size), *this; }
  };
  // [0]: every layer; [1]: from inherited_layers() on.
  StripsCrossPass strips_cross_[2];
  HessianMultipassPass multipass_[2];
  // The integral image and the strip are read as buffer textures
  // (copies of them) when the driver's hold the integral image.
  bool linear_ = false;
  int buffer_limit_ = -1;                // < 0: GL_MAX_TEXTURE_BUFFER_SIZE
  const gl::Texture* shared_ = nullptr;  // share_buffer()
  // Scratch, reused by every octave, group and band: the cross strip of a
  // band of sample rows, (W+1) x scratch_band_rows(octave 0's grid height)
  // (the largest band), and its copy.
  gl::Texture cross_;
  gl::Framebuffer cross_target_;
  gl::Texture cross_linear_;
  int width_ = 0, height_ = 0;
  std::vector<HessianOctave> octaves_;
};

}  // namespace glsurf
