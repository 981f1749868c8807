// GPU SIFT descriptors of an oriented list (docs/notes/sift.md, Descriptor;
// the CPU reference: cpu::sift::describe), three passes:
//
//   bins             per entry and spatial bin, its 8 orientation values
//                    (trilinear, Gaussian-weighted), a 4 x 4 tile per entry,
//                    two RGBA32F targets (orientations 0..3 and 4..7)
//   norms            per entry, |v|_2, the clamped values' |v'|_2 and the
//                    renormalised values' |v''|_1
//   normalize        the 128 values per entry, normalised, clamped at 0.2,
//                    normalised again (RootSIFT on top with
//                    SiftConfig::root_sift), a run of 32 RGBA32F texels per
//                    entry in the docs' value order
//
// Why this split: a fragment per entry and spatial bin keeps 8 sums (a
// fragment per entry would keep 128, in memory rather than registers, and
// give a GPU a sixteenth of the fragments), and visits only the pixels that
// reach its bin, about a third of the window; the 16 fragments of an
// entry's 4 x 4 tile are one llvmpipe block (common/blocks.glsl). The norms
// are a reduction over the entry, once per entry in a pass of their own
// rather than once per output texel.
//
// Input: the oriented list, the point list's two textures with the angle
// (degrees, counter-clockwise on screen) in place of D^: (x, y, sigma,
// angle) in octave pixels and (k, layer, offset_s, 0), 1024 entries to a
// row; and the Gaussian atlas (sift::atlas_layout(octaves, s + 3)).
#pragma once

#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "glsurf/detector.hpp"
#include "sift/layout.hpp"
#include "sift/orientation.hpp"

namespace glsurf::sift {

class DescriptorStage {
 public:
  // Values per descriptor, and texels (RGBA32F) per entry of descriptors().
  static constexpr int kSize = 128;
  static constexpr int kTexels = kSize / 4;

  DescriptorStage(const gl::ShaderSource& shaders, const SiftConfig& config);
  // Bytes per entry of capacity that configure() allocates: the bins (two
  // 16-texel tiles), the norms and the descriptors (RGBA32F).
  static double bytes_per_entry() { return 16.0 * (2 * 16 + 1 + kTexels); }
  void configure(int capacity);
  int capacity() const { return capacity_; }  // 0 before configure()

  // Descriptors of oriented-list entries 0 .. count - 1: `points` (x, y,
  // sigma, angle in degrees) and `scales` (k, layer, offset_s, 0), on the
  // Gaussian images of `gaussian`, laid out as `layout` says.
  void run(gl::PassRunner& runner, const gl::Texture& gaussian, const AtlasLayout& layout,
           const gl::Texture& points, const gl::Texture& scales, int count);

  // kTexels RGBA32F texels per entry from linear index entry * kTexels, 1024
  // wide: values 4t .. 4t + 3 in texel t (the matcher's layout).
  const gl::Texture& descriptors() const { return descriptors_; }
  // Reads back `count` entries' kSize values each.
  std::vector<float> read(int count) const;

 private:
  class BinsPass : public gl::Pass {
   public:
    BinsPass(const gl::ShaderSource& shaders, const SiftConfig& config);
    BinsPass& gaussian(const gl::Texture& atlas, const AtlasLayout& layout) {
      input("u_gaussian", atlas);
      return uniform("u_octaves", octave_uniforms(layout)), *this;
    }
    BinsPass& list(const gl::Texture& points, const gl::Texture& scales, int count) {
      input("u_points", points);
      input("u_scales", scales);
      return uniform("u_count", count), *this;
    }
  };
  class NormsPass : public gl::Pass {
   public:
    explicit NormsPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "sift_descriptor_norms", "sift/descriptor_norms.frag") {
      set_work(32 + 3 * 128);
    }
    NormsPass& bins(const gl::Texture& low, const gl::Texture& high, int count) {
      input("u_low", low);
      input("u_high", high);
      return uniform("u_count", count), *this;
    }
  };
  class NormalizePass : public gl::Pass {
   public:
    NormalizePass(const gl::ShaderSource& shaders, bool root_sift)
        : Pass(shaders, "sift_descriptor_normalize", "sift/descriptor_normalize.frag",
               root_sift ? std::vector<std::string>{"ROOT_SIFT"} : std::vector<std::string>{}) {}
    NormalizePass& bins(const gl::Texture& low, const gl::Texture& high, int count) {
      input("u_low", low);
      input("u_high", high);
      return uniform("u_count", count), *this;
    }
    NormalizePass& norms(const gl::Texture& norms) { return input("u_norms", norms), *this; }
  };

  BinsPass bins_;
  NormsPass norms_;
  NormalizePass normalize_;
  int capacity_ = 0;
  gl::Texture low_, high_, norms_tex_, descriptors_;
  gl::Framebuffer bins_target_, norms_target_, descriptors_target_;
};

}  // namespace glsurf::sift
