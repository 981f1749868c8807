// GPU descriptors of the keypoints of the point list at their angles (Bay et
// al. 2008, 4.1; rules and parameters: src/cpu/descriptor.hpp), read from the
// regrouped integral image (surf/orientation.hpp: IntegralQuads).
//
//   sums             per sub-region, 25 rotated Haar samples (side ~4s),
//                    a 4 x 4 tile of sub-regions per keypoint
//   norms            1 / L2 norm per keypoint
//   normalize        the unit-length descriptors, in runs of 16 texels
//   gather           (optional) the kept descriptors and Laplacian signs, in
//                    the detector's order, for the matcher
//
// Entries are the list entries, then with second orientations the list
// entries described again at their second angle. Per-entry data lives in
// 1024-wide textures (shaders/common/blocks.glsl), except the sums: a tile
// per entry, so that fragments shaded together read around one keypoint
// (docs/notes/descriptor.md).
#pragma once

#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/keypoint.hpp"
#include "surf/orientation.hpp"

namespace glsurf {

// Descriptors on the GPU in the matcher's layout: `count` descriptors of
// `texels` RGBA32F texels each (values 4t .. 4t+3 in texel t), keypoint k's
// block at linear index k * texels of a 1024-wide texture; Laplacian signs
// (+1 / -1) one R32F texel per keypoint. In the order of the Features they
// belong to, unless `order` is given: then entry i is keypoint order[i], and
// the entries are sorted by sign, [0, plus) positive and [plus, count)
// negative, so that the matcher skips whole blocks of the other sign
// (upload_descriptors with by_sign).
struct DescriptorTextures {
  gl::Texture descriptors, signs;
  int count = 0, texels = 0;
  int plus = -1;           // entries of sign +1 when sorted by sign; -1: not sorted
  std::vector<int> order;  // keypoint of each entry when sorted; empty: entry i is keypoint i
};

class DescriptorStage {
 public:
  DescriptorStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  // Bytes per list entry of capacity that configure() allocates and a full
  // run() and read() fill: with second orientations the second entry, and
  // per descriptor entry (two per list entry with second orientations) its
  // order, raw and normalised values, the copy read() returns and the
  // detector's sorted copy of that. On a software renderer the textures are
  // host memory too (detector.hpp: software_list_bytes).
  static double bytes_per_entry(const DetectorConfig& config);
  void configure(int capacity);
  int capacity() const { return capacity_; }  // 0 before configure()

  // Descriptors of list entries 0 .. count - 1 at `angles` (OrientationStage),
  // as descriptor entries 0 .. count - 1, then with `second` those list
  // entries again at their second angles, as entries count, count + 1, ...
  // Returns the number of descriptor entries.
  int run(gl::PassRunner& runner, const gl::Texture& list, const IntegralQuads& quads,
          const gl::Texture& angles, int count, const OrientationStage::SecondOrientations* second = nullptr);
  // Reads back the values of `entries` descriptor entries, descriptor_size
  // each.
  std::vector<float> read(int entries) const;
  // Copies, on the GPU, the descriptors and signs of descriptor entries
  // order[0], order[1], ... of the last run() into `out` (allocated here), in
  // that order.
  void gather(gl::PassRunner& runner, const gl::Texture& list, const std::vector<int>& order,
              DescriptorTextures& out);

 private:
  bool second_orientation() const { return config_.second_orientation > 0 && !config_.upright; }
  // sums_ for the quads' kind.
  void build_sums(const IntegralQuads& quads);

  // sums (4.1): per sub-region of each entry, the sums of its 25 rotated
  // Haar responses, a 4 x 4 tile per entry; variants LINEAR_FETCH (the
  // quads' buffer copy) and, with extended, EXTENDED.
  class SumsPass : public gl::Pass {
   public:
    SumsPass() = default;
    SumsPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "descriptor_sums", "descriptor/sums.frag", defines) {
      set_work(25 * 8);  // 25 samples, a Haar pair of 8 integral fetches each
    }
    // The keypoints and their angles (OrientationStage).
    SumsPass& list(const gl::Texture& list, const gl::Texture& angles) {
      input("u_list", list);
      return input("u_angles", angles), *this;
    }
    SumsPass& quads(const IntegralQuads& quads) {
      input("u_quads", quads.texture());
      return uniform("u_quads_size", quads.size()), *this;
    }
    // `count` entries: list entries 0 .. primary - 1, then the (list entry,
    // angle) pairs of `second`.
    SumsPass& entries(int count, int primary, const gl::Texture& second) {
      input("u_extra", second);
      uniform("u_count", count);
      return uniform("u_primary", primary), *this;
    }
  };
  // A pass that reads descriptors as halves: u_first_half, and with
  // extended (EXTENDED) u_second_half.
  class HalvesPass : public gl::Pass {
   protected:
    HalvesPass(const gl::ShaderSource& shaders, const char* key, const std::string& fragment,
               const DetectorConfig& config);
    void halves(const gl::Texture (&halves)[2]) {
      input("u_first_half", halves[0]);
      if (extended_) input("u_second_half", halves[1]);
    }

   private:
    bool extended_ = false;
  };
  // norms (4.1's unit length): 1 / L2 norm of each entry's sums.
  class NormsPass : public HalvesPass {
   public:
    NormsPass(const gl::ShaderSource& shaders, const DetectorConfig& config)
        : HalvesPass(shaders, "descriptor_norms", "descriptor/norms.frag", config) {}
    NormsPass& sums(const gl::Texture (&raw)[2], int count) {
      halves(raw);
      return uniform("u_count", count), *this;
    }
  };
  // normalize: each entry's sums times its 1 / norm, in runs of 16 texels.
  class NormalizePass : public HalvesPass {
   public:
    NormalizePass(const gl::ShaderSource& shaders, const DetectorConfig& config)
        : HalvesPass(shaders, "descriptor_normalize", "descriptor/normalize.frag", config) {}
    NormalizePass& sums(const gl::Texture (&raw)[2], int count) {
      halves(raw);
      return uniform("u_count", count), *this;
    }
    NormalizePass& scales(const gl::Texture& scales) { return input("u_scales", scales), *this; }
  };
  // gather: the descriptors of the entries `order` lists, in that order, in
  // blocks of `texels` texels (the matcher's layout).
  class GatherPass : public HalvesPass {
   public:
    GatherPass(const gl::ShaderSource& shaders, const DetectorConfig& config)
        : HalvesPass(shaders, "descriptor_gather", "descriptor/gather.frag", config) {}
    GatherPass& descriptors(const gl::Texture (&normalised)[2], int texels) {
      halves(normalised);
      return uniform("u_texels", texels), *this;
    }
    GatherPass& order(const gl::Texture& order, int count) {
      input("u_order", order);
      return uniform("u_count", count), *this;
    }
  };
  // gather_signs: the Laplacian signs of the list entries `order` lists.
  class GatherSignsPass : public gl::Pass {
   public:
    explicit GatherSignsPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "descriptor_gather_signs", "descriptor/gather_signs.frag") {}
    GatherSignsPass& list(const gl::Texture& list) { return input("u_list", list), *this; }
    GatherSignsPass& order(const gl::Texture& order, int count) {
      input("u_order", order);
      return uniform("u_count", count), *this;
    }
  };

  DetectorConfig config_;
  gl::ShaderSource shaders_;  // sums_ is rebuilt for the quads' kind
  SumsPass sums_;
  NormsPass norms_;
  NormalizePass normalize_;
  GatherPass gather_;
  GatherSignsPass gather_signs_;
  int sums_quads_kind_ = -1;  // IntegralQuads::in_buffer() sums_ was built for (-1: not built)
  int capacity_ = 0;
  int primary_ = 0;                 // list entries described by the last run()
  std::vector<int> second_source_;  // and the list entries of its second orientations
  gl::Texture extra_;               // with second orientations: (list entry, angle) of each second entry
  gl::Texture order_;               // gather's upload of the kept keypoints' order
  gl::Texture raw_[2], final_[2];   // [1] only with extended
  gl::Framebuffer raw_target_, final_target_;
  gl::Texture scales_;  // 1 / norm per descriptor (descriptor/norms.frag)
  gl::Framebuffer scales_target_;
};

}  // namespace glsurf
