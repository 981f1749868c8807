// HistoPyramid compaction (Ziegler et al. 2006) of the candidate atlas into a
// point list, with one 1-texel readback of the total.
//
//   level 0      hp_base:    keypoints per 4x4 block of the atlas
//   level k      hp_reduce:  sum of 4x4 blocks of level k-1, down to 1x1
//   point list   hp_traverse: entry k descends the pyramid to the k-th keypoint
//
// 4x4 rather than Ziegler's 2x2: half the levels (on llvmpipe each is a draw
// with a fixed cost; docs/notes/compaction.md), for 16 counts read per
// level of the descent instead of 4. Level 0 also keeps a mask per block of
// which atlas texels it counted, in which class, and the descent's last step
// reads it instead of the atlas.
//
// Levels have size ceil(previous / 4) (no power-of-two padding); even levels
// are packed side by side in one RG32UI texture and odd levels in another, so
// every reduction reads one texture and writes the other.
//
// The pyramid counts two classes of keypoints apart (RG): those for which
// cpu::orientation_inside holds (common/orientation_inside.glsl), whose
// orientation samples need no clipping, and the others. The list holds the
// first class first, so that description can take those entries' samples
// without the clipping arithmetic, with no read-back or upload of the list
// in between.
//
// The list is a 2-D texture pair of `capacity` entries, `list_width` per row:
// keypoints (RGBA32F: x, y, size * laplacian, response) and where they came
// from (RGBA32F: octave, atlas x, atlas y, 0). Within each class entries are
// in the pyramid's (deterministic) order, not sorted.
//
// The same stage compacts SIFT's candidate atlas (src/sift/extrema.hpp) when
// built for it (the SiftConfig constructor): one class, and the list
// decoded into SIFT's point list, (x, y, sigma, D^) in octave pixels and (k,
// layer, offset_s, 0) (docs/notes/sift.md, GPU data between stages).
#pragma once

#include "gl/pass.hpp"
#include "gl/shared_constants.hpp"
#include "surf/extrema.hpp"
#include "surf/select.hpp"

namespace glsurf {

// A candidate atlas as CompactStage and SelectStage read it: one RGBA32F
// texture, response (> 0) in alpha where a candidate is and 0 elsewhere, and
// its maps (x, y, width, height) octave by octave, maps_per_octave each: the
// list says which octave an entry came from by the map that holds it.
struct CandidateAtlas {
  const gl::Texture* texture = nullptr;
  std::vector<glm::ivec4> rects;
  int maps_per_octave = 1;
};
// SURF's: ExtremaStage's atlas and maps.
CandidateAtlas candidate_atlas(const ExtremaStage& extrema);

class CompactStage {
 public:
  static constexpr int kListWidth = shader::kListWidth;
  static constexpr int kMaxLevels = shader::kMaxPyramidLevels;

  // Which atlas texels count and list (common/keep.glsl): every keypoint, or,
  // given a selection (select.hpp), those whose response is at or above its
  // threshold (the N strongest and exact ties with the N-th), strictly above
  // it, or exactly at it.
  enum class Keep { All, AtOrAbove, Above, At };

  // For SURF's candidate atlas (surf/extrema.hpp).
  CompactStage(const gl::ShaderSource& shaders, int capacity);
  // For SIFT's (sift/extrema.hpp): its texels decoded with `sift`'s sigma_0
  // and layers into SIFT's point list; every candidate of the first class.
  CompactStage(const gl::ShaderSource& shaders, int capacity, const SiftConfig& sift);
  // For `atlas`, of an image_width x image_height image (the image's size
  // classes SURF's keypoints; SIFT's ignores it).
  void configure(const CandidateAtlas& atlas, int image_width, int image_height);
  void configure(const ExtremaStage& extrema, int image_width, int image_height) {
    configure(candidate_atlas(extrema), image_width, image_height);
  }
  // Builds the pyramid and reads back its totals (the one small readback):
  // returns how many keypoints it counts, and puts in `inside` (if given) how
  // many of them are of the first class, which write_list() lists first.
  // `selection` is needed with every `keep` but All.
  int count(gl::PassRunner& runner, const CandidateAtlas& atlas, Keep keep = Keep::All,
            const gl::Texture* selection = nullptr, int* inside = nullptr);
  int count(gl::PassRunner& runner, const ExtremaStage& extrema, Keep keep = Keep::All,
            const gl::Texture* selection = nullptr, int* inside = nullptr) {
    return count(runner, candidate_atlas(extrema), keep, selection, inside);
  }
  // Lists the keypoints of the pyramid that count() last built (`total` of
  // them, as it returned) from list entry `first` on, as many as fit below
  // capacity(); entries before `first` and rows past the last are not shaded.
  void write_list(gl::PassRunner& runner, const CandidateAtlas& atlas, int total, int first = 0);
  void write_list(gl::PassRunner& runner, const ExtremaStage& extrema, int total, int first = 0) {
    write_list(runner, candidate_atlas(extrema), total, first);
  }
  // The point list of `atlas`'s strongest `wanted` candidates (0: all),
  // chosen on the GPU by `select`, as both detectors fill it: when there are
  // more than capacity() (with wanted = 0), the strongest capacity(); when
  // exact ties with the last one chosen are more than the list has room
  // for, every stronger candidate first and the ties filling the rest, in
  // the list's order. `inside` as count() (each part lists its own first).
  struct Listed {
    int listed = 0;          // entries written
    int candidates = 0;      // what the last count counted (before the cut to capacity())
    bool truncated = false;  // wanted = 0 and the atlas held more than capacity()
  };
  Listed list_strongest(gl::PassRunner& runner, SelectStage& select, const CandidateAtlas& atlas, int wanted,
                        int* inside = nullptr);

  // Reads back the first n entries (keypoints, origins), n <= capacity.
  void read_list(int n, std::vector<float>& keypoints, std::vector<float>& where) const;

  // Entries the list holds: the capacity asked for, but never more than the
  // atlas has texels (known after configure()).
  int capacity() const { return list_entries_; }
  const gl::Texture& list() const { return list_keypoints_; }
  // The list's second texture: (octave, atlas x, atlas y, 0) for SURF, (k,
  // layer, offset_s, 0) for SIFT.
  const gl::Texture& list_where() const { return list_where_; }

 private:
  // hp_base: level 0, the keypoints of each 4x4 block of the atlas by class,
  // and the block's class masks (compact/hp_base.frag; a variant per Keep,
  // common/keep.glsl).
  class BasePass : public gl::Pass {
   public:
    // `sift`: SIFT's atlas, every candidate of the first class.
    BasePass(const gl::ShaderSource& shaders, Keep keep, bool sift);
    BasePass& atlas(const gl::Texture& candidates) { return input("u_atlas", candidates), *this; }
    // With every Keep but All: select.hpp's state.
    BasePass& selection(const gl::Texture& state) { return input("u_selection", state), *this; }
    BasePass& origin(glm::ivec2 level0) { return uniform("u_origin", level0), *this; }  // in its texture
    // What common/orientation_inside.glsl needs to class a keypoint.
    BasePass& orientation_inside(glm::ivec2 image_size, float reach) {
      uniform("u_image_size", image_size);
      return uniform("u_orientation_reach", reach), *this;
    }
  };
  // hp_reduce: level k, the sums of 4x4 blocks of level k-1 (compact/hp_reduce.frag).
  class ReducePass : public gl::Pass {
   public:
    explicit ReducePass(const gl::ShaderSource& shaders)
        : Pass(shaders, "compact_hp_reduce", "compact/hp_reduce.frag") {}
    // Level k-1: the texture holding it, where it is in it and its size.
    ReducePass& finer(const gl::Texture& levels, glm::ivec2 origin, glm::ivec2 size) {
      input("u_finer", levels);
      uniform("u_finer_origin", origin);
      return uniform("u_finer_size", size), *this;
    }
    ReducePass& origin(glm::ivec2 level) { return uniform("u_origin", level), *this; }  // in the target
  };
  // hp_traverse: the point list, entry k descending the pyramid to the k-th
  // keypoint (compact/hp_traverse.frag).
  class TraversePass : public gl::Pass {
   public:
    // `sift`: the list decoded from SIFT's atlas (SIFT variant).
    TraversePass(const gl::ShaderSource& shaders, bool sift)
        : Pass(shaders, "compact_hp_traverse", "compact/hp_traverse.frag",
               sift ? std::vector<std::string>{"SIFT"} : std::vector<std::string>{}) {}
    // The levels (even and odd textures, where each is and its size; the top
    // is the last) and level 0's class masks.
    TraversePass& pyramid(const gl::Texture& even, const gl::Texture& odd, const gl::Texture& masks,
                          const std::vector<glm::ivec2>& origins, const std::vector<glm::ivec2>& sizes) {
      input("u_even", even);
      input("u_odd", odd);
      input("u_masks", masks);
      uniform("u_top", static_cast<int>(sizes.size()) - 1);
      uniform("u_origins", origins);
      return uniform("u_sizes", sizes), *this;
    }
    // The atlas and its maps (x, y, width, height), octave by octave.
    TraversePass& atlas(const gl::Texture& candidates, const std::vector<glm::ivec4>& rects,
                        int maps_per_octave) {
      input("u_atlas", candidates);
      uniform("u_rects", rects);
      uniform("u_rect_count", static_cast<int>(rects.size()));
      return uniform("u_maps_per_octave", maps_per_octave), *this;
    }
    // SIFT: sigma_0 and s, for sigma = sigma_0 2^((layer + offset_s) / s).
    TraversePass& sift_scale(float sigma, int layers) {
      uniform("u_sigma", sigma);
      return uniform("u_layers", layers), *this;
    }
    // Entries per row, and the entry that takes the pyramid's keypoint 0.
    TraversePass& list(int width, int first) {
      uniform("u_list_width", width);
      return uniform("u_first", first), *this;
    }
  };

  CompactStage(const gl::ShaderSource& shaders, int capacity, bool sift, float sigma, int layers);

  bool sift_ = false;
  float sift_sigma_ = 0;
  int sift_layers_ = 0;
  BasePass base_[4];  // indexed by Keep
  ReducePass reduce_;
  TraversePass traverse_;
  int capacity_ = 0, list_entries_ = 0;
  glm::ivec2 image_size_{0};
  std::vector<glm::ivec2> origins_, sizes_;  // per level
  gl::Texture even_, odd_;
  gl::Texture masks_;  // level 0's class masks (hp_base.frag)
  gl::Framebuffer base_target_, even_target_, odd_target_;
  gl::Texture list_keypoints_, list_where_;
  gl::Framebuffer list_target_;
};

}  // namespace glsurf
