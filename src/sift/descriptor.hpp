// GPU SIFT descriptors of an oriented list (docs/notes/sift.md, Descriptor;
// the CPU reference: cpu::sift::describe), three passes per chunk of up to
// kChunk entries:
//
//   cells            per entry and cell (r0, c0) of the trilinear grid (5 x
//                    5, -1 .. 3), the samples whose lower corner it is,
//                    shared between its 4 spatial bins and 2 orientation
//                    bins: 32 sums in 8 RGBA32F targets, a 5 x 5 tile per
//                    entry
//   norms            per entry, the raw values (each bin the sum of its 4
//                    cells' shares) and their |v|_2, the clamped values'
//                    |v'|_2 and the renormalised values' |v''|_1
//   normalize        the 128 values per entry, normalised, clamped at 0.2,
//                    normalised again (RootSIFT on top with
//                    SiftConfig::root_sift), a run of 32 RGBA32F texels per
//                    entry in the docs' value order
//
// Why this split: the 25 cells of an entry partition the samples it takes,
// so each sample is visited once; a fragment per spatial bin would visit
// each 2.56 times (shaders/sift/descriptor_cells.frag has the
// measurement). The norms are a reduction over the entry, once per entry
// in a pass of their own rather than once per output texel. Chunks bound
// the cells' sums (3,200 bytes an entry) at 14 MB whatever the capacity.
//
// Input: the oriented list, the point list's two textures with the angle
// (degrees in [0, 360), counter-clockwise on screen) in place of D^: (x, y,
// sigma, angle) in octave pixels and (k, layer, offset_s, 0), 1024 entries
// to a row; and the packed Gaussian atlas (sift::atlas_layout(octaves, s + 3, kPack)).
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
  // Entries per chunk: a multiple of 32, so that a chunk's descriptors
  // start a row.
  static constexpr int kChunk = 4096;

  DescriptorStage(const gl::ShaderSource& shaders, const SiftConfig& config);
  // Bytes per entry of capacity that configure() allocates (the
  // descriptors, RGBA32F), and besides them the bytes of one chunk's cell
  // sums and norms (at most 14 MB).
  static double bytes_per_entry() { return 16.0 * kTexels; }
  static double chunk_bytes(int capacity);
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
  static constexpr int kCellTargets = 8;
  // Binds descriptor_cells.frag's sums (sift/descriptor_bins.glsl).
  class CellsReader : public gl::Pass {
   protected:
    using gl::Pass::Pass;
    void cells(const gl::Texture (&sums)[kCellTargets]) {
      static const char* const kNames[kCellTargets] = {"u_cell0", "u_cell1", "u_cell2", "u_cell3",
                                                       "u_cell4", "u_cell5", "u_cell6", "u_cell7"};
      for (int i = 0; i < kCellTargets; ++i) input(kNames[i], sums[i]);
    }
  };
  class CellsPass : public gl::Pass {
   public:
    CellsPass(const gl::ShaderSource& shaders, const SiftConfig& config);
    CellsPass& gaussian(const gl::Texture& atlas, const AtlasLayout& layout) {
      input("u_gaussian", atlas);
      return uniform("u_octaves", octave_uniforms(layout)), *this;
    }
    CellsPass& list(const gl::Texture& points, const gl::Texture& scales) {
      input("u_points", points);
      return input("u_scales", scales), *this;
    }
    // The chunk: `count` entries from `first` on.
    CellsPass& chunk(int first, int count) {
      uniform("u_first", first);
      return uniform("u_count", count), *this;
    }
  };
  class NormsPass : public CellsReader {
   public:
    explicit NormsPass(const gl::ShaderSource& shaders)
        : CellsReader(shaders, "sift_descriptor_norms", "sift/descriptor_norms.frag") {
      set_work(16 * 8 + 3 * 128);
    }
    NormsPass& sums(const gl::Texture (&cells)[kCellTargets], int count) {
      this->cells(cells);
      return uniform("u_count", count), *this;
    }
  };
  class NormalizePass : public CellsReader {
   public:
    NormalizePass(const gl::ShaderSource& shaders, bool root_sift)
        : CellsReader(shaders, "sift_descriptor_normalize", "sift/descriptor_normalize.frag",
                      root_sift ? std::vector<std::string>{"ROOT_SIFT"} : std::vector<std::string>{}) {}
    NormalizePass& sums(const gl::Texture (&cells)[kCellTargets], const gl::Texture& norms) {
      this->cells(cells);
      return input("u_norms", norms), *this;
    }
    NormalizePass& chunk(int first, int count) {
      uniform("u_first", first);
      return uniform("u_count", count), *this;
    }
  };

  CellsPass cells_;
  NormsPass norms_;
  NormalizePass normalize_;
  int capacity_ = 0;
  int chunk_ = 0;  // entries the cell sums and norms hold
  gl::Texture cell_sums_[kCellTargets], norms_tex_, descriptors_;
  gl::Framebuffer cells_target_, norms_target_, descriptors_target_;
};

}  // namespace glsurf::sift
