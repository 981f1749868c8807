// GPU SIFT extrema (docs/notes/sift.md, Extrema): the DoG samples of layers
// 1 .. s above |D| > 0.5 T / s that are strictly above or below all 26
// neighbours, refined to sub-pixel and sub-layer position (up to 5 fits,
// moving between them), kept by the contrast and edge tests, as
// cpu::sift::find_extrema finds them.
//
// Output: the candidate atlas, one RGBA32F texture of maps, (x, y, code,
// |D^|) where a candidate was found, 0 elsewhere (shaders/sift/refine.frag;
// code: sift/code.glsl). A map texel is a cell of 2 x 2 samples of a pair of
// layers {l, l + 1}, l = 1, 3, ... (l alone for the last of an odd s): any two
// of its 8 samples are neighbours, so it holds at most one maximum and at
// most one minimum, and each pair has a map of maxima and one of minima.
// The maps lie as sift::atlas_layout places images, for 2 ceil(s / 2) maps
// per octave of ceil(W_k / 2) x ceil(H_k / 2): map 2 j + m (m = 0 maxima, 1
// minima) of pair j in column m, row j of the octave's band. A candidate
// is written into the cell where it was found; where it moved to is in its
// values.
//
// Cells rather than samples: a quarter of the texels per map, and with s =
// 3 the atlas has as many texels as octave 0, a third of what a texel per
// sample and layer takes (16 bytes each: for a 2 MP image doubled, 171 MB
// against 512 MB, and a depth buffer a quarter of that); the mark pass finds
// the one sample of a cell that can be an extremum of its map's kind in 8
// look-ups and tests it in 26 (34 look-ups for 8 samples instead of 27 for
// each), and the compaction reads a third as many texels.
//
// Passes, per octave and pair of layers (Terriberry et al. 2008, III-B.2: one
// early-Z round):
//   sift_mark     the 26-neighbour test of the pair's cells, both maps in one
//                 draw; cells with an extremum marked in the atlas's depth
//                 buffer (sift/mark.frag)
//   sift_refine   the same test again on the marked cells alone (early-Z
//                 culling), then the refinement, contrast and edge tests
//                 (sift/refine.frag)
#pragma once

#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/texture.hpp"
#include "sift/layout.hpp"
#include "sift/scale_space.hpp"
#include "surf/compact.hpp"

namespace glsurf::sift {

// The candidate atlas's layout for `octaves` with s = n_octave_layers: the
// cells of each octave, 2 ceil(s / 2) maps per octave.
AtlasLayout candidate_layout(const std::vector<cpu::sift::OctaveSize>& octaves, int layers);

class ExtremaStage {
 public:
  ExtremaStage(const gl::ShaderSource& shaders, const SiftConfig& config);

  // Why the candidate atlas of a width x height image does not fit the
  // driver's textures, or "".
  static std::string size_problem(int width, int height, const SiftConfig& config);
  // Allocates the atlas and its depth buffer for scale_space's octaves.
  void configure(const ScaleSpaceStage& scale_space);
  // Clears the atlas, marks, then refines each pair of layers culled to its marks.
  void run(gl::PassRunner& runner, const ScaleSpaceStage& scale_space);

  const gl::Texture& atlas() const { return atlas_; }
  const AtlasLayout& layout() const { return layout_; }
  // Early-Z's marks (Depth32F, the atlas's size): 0 where a cell has an
  // extremum, 1 elsewhere. Tests read it.
  const gl::Texture& marks() const { return depth_; }
  const gl::Framebuffer& target() const { return target_; }
  // The atlas as CompactStage and SelectStage read it: one map per octave
  // (its band), which says the octave of a list entry.
  CandidateAtlas candidates() const;
  int pairs() const { return (config_.n_octave_layers + 1) / 2; }

 private:
  // What sift/cells.glsl takes, for both passes: the DoG atlas, layers l -
  // 1 .. l + 2 of the octave (l + 2 clamped to s + 1), whether l + 1 is
  // searched, the pair's row of maps and a map's size, and 0.5 T / s.
  class CellsPass : public gl::Pass {
   public:
    using Pass::Pass;
    static std::vector<std::string> one_layer_define(bool one_layer) {
      return one_layer ? std::vector<std::string>{"ONE_LAYER"} : std::vector<std::string>{};
    }
    static std::vector<std::string> with_layers(bool one_layer, int layers) {
      std::vector<std::string> defines = one_layer_define(one_layer);
      defines.push_back("LAYERS " + std::to_string(layers));
      return defines;
    }
    CellsPass& pair(const gl::Texture& dog, const std::vector<glm::ivec4>& rects, bool second,
                    glm::ivec2 origin, glm::ivec2 map_size, float threshold) {
      input("u_dog", dog);
      uniform("u_rects", rects);
      uniform("u_second", second ? 1 : 0);
      uniform("u_origin", origin);
      uniform("u_cells", map_size);
      return uniform("u_threshold", threshold), *this;
    }
  };
  // sift_mark (sift/mark.frag, drawn with DepthMode::Mark).
  class MarkPass : public CellsPass {
   public:
    MarkPass() = default;
    // `one_layer`: for the last pair of an odd s, l alone (sift/cells.glsl).
    MarkPass(const gl::ShaderSource& shaders, bool one_layer)
        : CellsPass(shaders, "sift_mark", "sift/mark.frag", one_layer_define(one_layer)) {
      set_work(64);
    }
  };
  // sift_refine (sift/refine.frag, drawn with DepthMode::Cull).
  class RefinePass : public CellsPass {
   public:
    RefinePass() = default;
    RefinePass(const gl::ShaderSource& shaders, int layers, bool one_layer)
        : CellsPass(shaders, "sift_refine", "sift/refine.frag", with_layers(one_layer, layers)) {
      set_work(64 + 5 * 27);
    }
    // The octave's DoG images 0 .. s + 1 and the pair's first layer l.
    RefinePass& octave(const std::vector<glm::ivec4>& layer_rects, int first_layer) {
      uniform("u_layer_rects", layer_rects);
      return uniform("u_layer", first_layer), *this;
    }
    RefinePass& tests(float contrast_threshold, float edge_threshold) {
      uniform("u_contrast", contrast_threshold);
      return uniform("u_edge", edge_threshold), *this;
    }
  };

  SiftConfig config_;
  // [0] pairs of two layers, [1] the last pair of an odd s (l alone).
  MarkPass mark_[2];
  RefinePass refine_[2];
  AtlasLayout layout_;
  gl::Texture atlas_, depth_;
  gl::Framebuffer target_;
};

}  // namespace glsurf::sift
