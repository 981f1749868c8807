// GPU keypoint candidates: for every octave and middle layer, the samples
// whose det(H) exceeds the threshold and all 26 neighbours, moved to the peak
// of the quadratic through their 3x3x3 block (shaders/extrema/interpolate.frag;
// rules as src/cpu/detector.hpp).
//
// Output: the candidate atlas, one RGBA32F texture of maps, (x, y, size *
// laplacian, response) where a keypoint was found, zero elsewhere. A map has
// one texel per cell of 2 x 2 samples of its octave's grid: a cell holds at
// most one keypoint of a map's layers, since any two of its samples are
// neighbours, so each would dominate the other in its 3x3x3 block. For the
// same reason two adjacent middle layers share a map; layers two or more
// apart need their own: each octave has ceil(n_octave_layers / 2) maps, for
// layers {1, 2}, {3, 4}, ... Octave 0's maps lie side by side from the
// origin; the other octaves' maps are stacked in a column to their right, a
// band per octave, like a mip chain. For the default two layers: one map per
// octave, an atlas 1.5 times as wide as octave 0's cells.
//
// Cells rather than samples: the mark and interpolation passes
// shade a quarter as many fragments, 16 look-ups serving four samples'
// blocks instead of 9 serving one, and the compaction reads a quarter as
// many texels (docs/notes/extrema.md).
//
// Passes (Terriberry et al. 2008, III-B.2, with one early-Z round):
//   nms_mark         threshold and 26-neighbour test, the cells with a
//                    survivor marked in the atlas's depth buffer. When a map's two layers and
//                    their neighbours share a texture group (every map with
//                    the default two layers per octave), nms_mark_pair marks
//                    both in one draw from the 16 det(H) texels around each
//                    cell. Otherwise each layer is marked in four look-ups
//                    (nms_mark) from 3x3 maxima made beforehand, separably:
//   max3 x, max3 y   the 3x3 maximum of every layer of a group (extrema/max3.frag)
//   extrema          the exact test and the interpolation (extrema/interpolate.frag),
//                    drawn with early-Z culling so only survivors are shaded;
//                    one draw per map for maps marked as pairs (16 look-ups
//                    serve both layers), else per layer (48 look-ups)
// The baseline without marks, the extrema pass on every cell, is
// baseline/extrema_single.hpp: it clears the atlas and draws interpolate()
// with depth testing off (the tests compare both with the CPU). On llvmpipe
// early-Z is a little faster (docs/notes/extrema.md).
#pragma once

#include <algorithm>
#include <string>

#include "gl/pass.hpp"
#include "surf/hessian.hpp"

namespace glsurf {

struct AtlasRect {
  int octave = 0;
  int first_layer = 1;  // this map holds layers first_layer and first_layer + 1
  int x = 0, y = 0, width = 0, height = 0;
};

// The maps of a width x height image in the atlas (the layout above), octave
// by octave; `size` gets the atlas's size. Needs no GL: the detector checks
// the size against the driver's limit before it allocates anything.
std::vector<AtlasRect> atlas_layout(int width, int height, const DetectorConfig& config, glm::ivec2& size);
// The atlas's gl::texture_size_problem on the current context, "" if it fits.
std::string atlas_size_problem(int width, int height, const DetectorConfig& config);
// The cells of a sample grid: 2 x 2 samples each, the last row and column
// holding one sample where the grid's side is odd.
inline glm::ivec2 cell_grid(glm::ivec2 grid) { return (grid + 1) / 2; }
// Maps per octave: one for each two middle layers, ceil(n_octave_layers / 2).
inline int maps_per_octave(const DetectorConfig& config) { return (config.n_octave_layers + 1) / 2; }

class ExtremaStage {
 public:
  ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  // Throws glsurf::Error if the atlas exceeds the driver's texture size.
  void configure(const HessianStage& hessian, int width, int height);
  // Caps the buffer textures below GL_MAX_TEXTURE_BUFFER_SIZE before
  // configure() (tests: 0 reads det(H) as 2-D textures, as for an image too
  // large for the driver's buffer textures; < 0: the driver's limit).
  void limit_buffer_texels(int texels) { buffer_limit_ = texels; }
  // Keeps only the keypoints in `core` (a tile's; the default keeps all).
  void set_core(const TileCore& core) { core_ = core; }
  // Makes the buffer copy of det(H) a view of `storage` (gl::Texture::buffer_view,
  // RGBA32UI) where it is large enough, instead of a buffer of its own: the
  // detector lends one buffer to the Hessian, suppression and the quads, which
  // fill and read it in turn. nullptr: a buffer of its own. Drops the view
  // made before: configure() next.
  void share_buffer(const gl::Texture* storage) {
    shared_ = storage;
    det_linear_ = gl::Texture();
    width_ = height_ = 0;
  }
  // Clears the atlas, marks, then interpolates each map culled to its marks.
  void run(gl::PassRunner& runner, const HessianStage& hessian);

  // run()'s last step, public for the baseline without marks
  // (baseline/extrema_single.hpp), which draws it with DepthMode::Off into
  // target() cleared to zero: the exact test and interpolation of map r
  // (extrema/interpolate.frag) from octave `oct` of det(H). `pair_det`: for a
  // map marked as a pair, its det(H) group as pair_input() gives it (nullptr
  // otherwise).
  void interpolate(gl::PassRunner& runner, const HessianOctave& oct, const AtlasRect& r,
                   const gl::Texture* pair_det, gl::PassRunner::DepthMode depth);
  // The det(H) group that the pair shaders read for pair map r: its buffer
  // copy, copied now, where the driver's buffer textures hold it; else the
  // group's 2-D texture.
  const gl::Texture& pair_input(gl::PassRunner& runner, const HessianOctave& oct, const AtlasRect& r);
  // The atlas with its depth buffer (the marks) attached.
  const gl::Framebuffer& target() const { return target_; }

  const gl::Texture& atlas() const { return atlas_; }
  // Early-Z's marks (Depth32F, the atlas's size): 0 where the mark pass let a
  // cell through to the extrema pass, 1 elsewhere. Tests read it.
  const gl::Texture& marks() const { return atlas_depth_; }
  const std::vector<AtlasRect>& rects() const { return rects_; }  // octave by octave
  int maps_per_octave() const { return glsurf::maps_per_octave(config_); }
  // The last layer of map r: first_layer + 1, or first_layer for the odd one out.
  int last_layer(const AtlasRect& r) const { return std::min(r.first_layer + 1, config_.n_octave_layers); }
  // Whether map r's layers and their neighbours are one group's four channels (nms_mark_pair).
  bool marks_as_pair(const AtlasRect& r) const;

 private:
  // Step 1 of marking layer by layer: one axis of the separable 3x3 maximum
  // of every layer of a det(H) group (extrema/max3.frag); one instance per
  // axis, each with its timer key.
  class Max3Pass : public gl::Pass {
   public:
    enum class Axis { X, Y };
    Max3Pass() = default;
    Max3Pass(const gl::ShaderSource& shaders, Axis axis)
        : Pass(shaders, axis == Axis::X ? "extrema_max3_x" : "extrema_max3_y", "extrema/max3.frag"),
          axis_(axis) {}
    // det(H) (x pass) or the x pass's result (y pass).
    Max3Pass& source(const gl::Texture& layers) {
      input("u_source", layers);
      return uniform("u_axis", axis_ == Axis::X ? glm::ivec2(1, 0) : glm::ivec2(0, 1)), *this;
    }

   private:
    Axis axis_ = Axis::X;
  };
  // nms_mark: the threshold and 26-neighbour test of one layer l in four
  // look-ups from the 3x3 maxima, marking the cells with a survivor
  // (extrema/nms_mark.frag, drawn with DepthMode::Mark).
  class MarkPass : public gl::Pass {
   public:
    MarkPass() = default;
    explicit MarkPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "extrema_nms_mark", "extrema/nms_mark.frag") {}
    // The group holding layer l, the 3x3 maxima of the groups holding l-1,
    // l, l+1, and the channel of each of those layers in its texture.
    MarkPass& layer(const gl::Texture& det, const gl::Texture& max_below, const gl::Texture& max_mid,
                    const gl::Texture& max_above, glm::ivec3 channels) {
      input("u_det", det);
      input("u_max_below", max_below);
      input("u_max_mid", max_mid);
      input("u_max_above", max_above);
      return uniform("u_channels", channels), *this;
    }
    MarkPass& largest_filter(int side) { return uniform("u_largest_filter", side), *this; }  // layer l+1's
    MarkPass& threshold(float hessian_threshold) { return uniform("u_threshold", hessian_threshold), *this; }
    // Where the map's cells start in the atlas, the octave's sampling step, the image's size.
    MarkPass& cells(glm::ivec2 origin, int step, glm::ivec2 image_size) {
      uniform("u_origin", origin);
      uniform("u_step", step);
      return uniform("u_image_size", image_size), *this;
    }
  };
  // nms_mark_pair: MarkPass for both layers of a pair map in one draw, from
  // the 16 det(H) texels around each cell (extrema/nms_mark_pair.frag;
  // LINEAR_FETCH: det(H) from its buffer copy).
  class MarkPairPass : public gl::Pass {
   public:
    MarkPairPass() = default;
    MarkPairPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "extrema_nms_mark", "extrema/nms_mark_pair.frag", defines) {}
    // The group holding layers l-1 .. l+2 in channels x .. w (pair_input()).
    MarkPairPass& group(const gl::Texture& det) { return input("u_det", det), *this; }
    // The filter sides of layers l+1 and l+2.
    MarkPairPass& largest_filters(glm::ivec2 sides) { return uniform("u_largest_filters", sides), *this; }
    MarkPairPass& threshold(float hessian_threshold) {
      return uniform("u_threshold", hessian_threshold), *this;
    }
    MarkPairPass& cells(glm::ivec2 origin, int step, glm::ivec2 image_size) {
      uniform("u_origin", origin);
      uniform("u_step", step);
      return uniform("u_image_size", image_size), *this;
    }
  };
  // extrema: the exact test and the quadratic interpolation of a map's
  // keypoints (extrema/interpolate.frag). A map marked layer by layer draws
  // each layer (layer()); with PAIR, a pair map both layers at once (group(),
  // next_filter()), with LINEAR_FETCH from det(H)'s buffer copy.
  class InterpolatePass : public gl::Pass {
   public:
    InterpolatePass() = default;
    InterpolatePass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "extrema_interpolate", "extrema/interpolate.frag", defines) {}
    // Without PAIR: the groups holding layers l-1, l, l+1 and each one's channel.
    InterpolatePass& layer(const gl::Texture& below, const gl::Texture& mid, const gl::Texture& above,
                           glm::ivec3 channels) {
      input("u_below", below);
      input("u_mid", mid);
      input("u_above", above);
      return uniform("u_channels", channels), *this;
    }
    // With PAIR: the group holding layers l-1 .. l+2 in channels x .. w (pair_input()).
    InterpolatePass& group(const gl::Texture& det) { return input("u_mid", det), *this; }
    // The Laplacian's signs of the group holding layer l (HessianOctave::signs).
    InterpolatePass& signs(const gl::Texture& signs) { return input("u_signs", signs), *this; }
    // The filter sides of layers l-1, l, l+1; with PAIR also of l+2.
    InterpolatePass& filters(glm::ivec3 sides) { return uniform("u_filters", sides), *this; }
    InterpolatePass& next_filter(int side) { return uniform("u_next_filter", side), *this; }
    InterpolatePass& threshold(float hessian_threshold) {
      return uniform("u_threshold", hessian_threshold), *this;
    }
    InterpolatePass& cells(glm::ivec2 origin, int step, glm::ivec2 image_size) {
      uniform("u_origin", origin);
      uniform("u_step", step);
      return uniform("u_image_size", image_size), *this;
    }
    InterpolatePass& core(const TileCore& c) {
      return uniform("u_core", glm::ivec4(c.x0, c.y0, c.x1, c.y1)), *this;
    }
  };

  DetectorConfig config_;
  gl::ShaderSource shaders_;  // the pair passes are built for the kind of det(H) input
  InterpolatePass interpolate_pair_;
  MarkPairPass mark_pair_;
  // For maps marked layer by layer: built by configure() where there are any.
  InterpolatePass interpolate_;
  Max3Pass max3_x_, max3_y_;
  MarkPass mark_;
  // Maps marked as pairs read their det(H) group from a buffer copy
  // (linear look-ups, faster on llvmpipe: docs/notes/extrema.md) when the
  // driver's buffer textures hold octave 0's
  // grid; each pair map's group is copied in just before its draws.
  int buffer_limit_ = -1;
  const gl::Texture* shared_ = nullptr;  // share_buffer()
  bool linear_ = false;
  gl::Texture det_linear_;
  int width_ = 0, height_ = 0;
  TileCore core_;
  std::vector<AtlasRect> rects_;
  gl::Texture atlas_, atlas_depth_;
  gl::Framebuffer target_;
  // Per octave: the x pass's scratch, and per layer group the 3x3 maxima,
  // made only for groups that a map marked layer by layer needs (`needed`;
  // maps marked as pairs take their maxima from det(H) directly).
  struct Maxima {
    gl::Texture along_x;
    gl::Framebuffer along_x_target;
    std::vector<gl::Texture> groups;
    std::vector<gl::Framebuffer> group_targets;
    std::vector<bool> needed;
  };
  std::vector<Maxima> maxima_;
  // nms_mark.frag for layer l of map r (any groups).
  void mark_layer(gl::PassRunner& runner, const HessianOctave& oct, const Maxima& m, const AtlasRect& r,
                  int l);
};

}  // namespace glsurf
