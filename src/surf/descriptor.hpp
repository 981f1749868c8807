// GPU orientation and descriptors for the keypoints of the point list
// (rules and parameters: src/cpu/descriptor.hpp).
//
//   quads            the integral image regrouped: texel (x+1, y+1) holds the
//                    four values around corner (x, y), clamped into the image,
//                    so one fetch serves a corner of a sub-pixel box (4x
//                    fewer fetches; 16 bytes per pixel, rebuilt once per
//                    run of the integral stage)
//   orient_samples   197 weighted gradients (a cross of boxes ~2.4s x 1.4s,
//                    lattice 2s/3) per keypoint, two to a texel, in an
//                    11 x 9 tile (the passes after it take their
//                    directions); the rows of tiles of keypoints with
//                    cpu::orientation_inside (run()'s `inside`) without
//                    the clipping arithmetic, the others with it
//   orient_windows   the window sums around 32 candidate directions (64
//                    with second orientations), the largest of each 32
//                    neighbouring ones
//   orient_best      the largest of those, recentred on its own sum (with
//                    Aitken leaps) until it settles
//                    -> angle per keypoint
//                    (with DetectorConfig::second_orientation, orient_windows
//                    also keeps each group's two largest local maxima, and
//                    orient_best recentres the largest but the best too ->
//                    a second angle or -1; run() reads those back, one wait,
//                    and describes the keypoints that have one again)
//   descriptor       per sub-region, 25 rotated Haar samples (side ~4s)
//   normalize        L2 normalisation per keypoint
//
// Orientation runs in chunks of kChunk keypoints so that its samples need
// at most 1024 x 405 texels whatever the list's capacity. Upright (U-SURF)
// skips orientation: angles are 0. Per-keypoint data lives in 1024-wide
// textures (shaders/common/blocks.glsl), keypoint k's run of B texels at
// linear index k * B, except the outputs of the two passes that gather from
// the integral image: an 11 x 9 tile of orientation samples and a 4 x 4 tile
// of descriptor sub-regions per keypoint, so that fragments shaded together
// read around one keypoint (docs/notes/orientation.md and descriptor.md);
// normalize writes runs.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/descriptor.hpp"
#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/program.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/integral.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

// Descriptors on the GPU in the matcher's layout: `count` descriptors of
// `texels` RGBA32F texels each (values 4t .. 4t+3 in texel t), keypoint k's
// block at linear index k * texels of a 1024-wide texture; Laplacian signs
// (+1 / -1) one R32F texel per keypoint. Same order as the Features they
// belong to.
struct DescriptorTextures {
  gl::Texture descriptors, signs;
  int count = 0, texels = 0;
};

class DescribeStage {
 public:
  static constexpr int kChunk = 4096;

  DescribeStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  // Bytes per list entry of capacity that configure() allocates and a full
  // run() and read() fill: the angle, with second orientations the second
  // angle and entry, and per descriptor entry (two per list entry with
  // second orientations) its order, raw and normalised values, the copy
  // read() returns and the detector's sorted copy of that. On a software
  // renderer the textures are host memory too (detector.hpp:
  // software_list_bytes).
  static double bytes_per_entry(const DetectorConfig& config);
  void configure(int capacity);
  int capacity() const { return capacity_; }  // 0 before configure()
  // Second orientations (DetectorConfig::second_orientation) of the last
  // run(): descriptor entry count + i is list entry source[i] at angle[i]
  // (degrees ccw), in list order.
  struct SecondOrientations {
    std::vector<int> source;
    std::vector<float> angle;
  };
  // Orientation and descriptors of list entries 0 .. count - 1, as
  // descriptor entries 0 .. count - 1. With `second` (and the configuration's
  // second_orientation), the keypoints that have a second orientation are
  // described again at it, as entries count, count + 1, ...; `second` says
  // which. Returns the number of descriptor entries.
  // List entries 0 .. inside - 1 must have cpu::orientation_inside: their
  // orientation samples are taken without clipping (whole rows of their
  // blocks), the others' with it.
  int run(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral, int count,
          SecondOrientations* second = nullptr, int inside = 0);
  // Descriptors of list entries 0 .. angles.size() - 1 at the given angles
  // (degrees ccw), which angles() then holds: no orientation passes
  // (Angles::Keep).
  void run_at(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral,
              const std::vector<float>& angles);
  // Orientation only (angles(); 0 everywhere when upright); `inside` as for
  // run().
  void orient(gl::PassRunner& runner, const gl::Texture& list, IntegralStage& integral, int count,
              int inside = 0);
  // Angle per list entry, degrees ccw (R32F, 1024 wide).
  const gl::Texture& angles() const { return angles_; }
  // With second orientations, the second angle per list entry of the last
  // orient() or run() (R32F like angles(), -1 where there is none); nullptr
  // without them.
  const gl::Texture* second_angles() const { return second_orientation() ? &second_angles_ : nullptr; }
  // Reads back count angles (degrees) and, with_descriptors, the values of
  // `entries` descriptor entries (count when < 0), descriptor_size each.
  void read(int count, std::vector<float>& angles, std::vector<float>& descriptors,
            bool with_descriptors = true, int entries = -1) const;
  // Caps the buffer textures (the quads, the orientation samples) below
  // GL_MAX_TEXTURE_BUFFER_SIZE (tests: 0 reads every input 2-D, as for data
  // too large for the driver's buffer textures; < 0: the driver's limit).
  // The quads follow at the next run, the samples at the next configure().
  void limit_buffer_texels(int texels) {
    buffer_limit_ = texels;
    capacity_ = 0;  // configure again
    quads_generation_ = 0;
  }
  // Copies, on the GPU, the descriptors and signs of descriptor entries
  // order[0], order[1], ... of the last run() into `out` (allocated here), in
  // that order.
  void gather(gl::PassRunner& runner, const gl::Texture& list, const std::vector<int>& order,
              DescriptorTextures& out);

 private:
  DetectorConfig config_;
  gl::ShaderSource shaders_;  // samples_ and describe_ are rebuilt for the quads' kind
  // -> quads_, unless they hold this result of `integral` (generation()).
  void regroup(gl::PassRunner& runner, IntegralStage& integral);
  void orient_passes(gl::PassRunner& runner, const gl::Texture& list, int count, int inside);
  // The descriptor and normalisation passes for list entries 0 .. count - 1
  // at angles_ and the second orientations in second_source_ and extra_;
  // returns the number of descriptor entries.
  int describe_entries(gl::PassRunner& runner, const gl::Texture& list, int count);
  bool second_orientation() const { return config_.second_orientation > 0 && !config_.upright; }
  // Window directions tried (cpu::orientation_candidates), and orient_windows'
  // texels per keypoint.
  int candidates() const {
    return cpu::orientation_candidates(second_orientation() ? config_.second_orientation : 0);
  }
  int window_texels() const;
  // Entries: list entries, then up to as many second orientations.
  int entry_capacity() const { return second_orientation() ? 2 * capacity_ : capacity_; }

  gl::Program quads_program_, quads_linear_program_, samples_, windows_, best_, norms_, normalize_, gather_,
      gather_signs_;
  gl::Program samples_inside_;  // samples_ for keypoints with cpu::orientation_inside
  gl::Program describe_;
  int capacity_ = 0;
  gl::Texture quads_;                   // the integral image regrouped, sized at each run
  std::uint64_t quads_generation_ = 0;  // IntegralStage::generation() they hold (0: none)
  // The same as a buffer texture (common/haar.glsl), when the driver's buffer
  // textures hold it; samples_ and describe_ are built for the kind in use.
  gl::Texture quads_buffer_;
  bool quads_in_buffer_ = false;
  int buffer_limit_ = -1;  // < 0: GL_MAX_TEXTURE_BUFFER_SIZE
  const gl::Texture& quads() const { return quads_in_buffer_ ? quads_buffer_ : quads_; }
  gl::Framebuffer quads_target_;
  gl::Texture orient_samples_, orient_windows_, angles_;
  // With second orientations: orient_windows' local maxima, orient_best's
  // second angles, and the entries' (list entry, angle) that describe them.
  gl::Texture peaks_[2], second_angles_, extra_;
  int primary_ = 0;                    // list entries described by the last run()
  std::vector<int> second_source_;     // and the list entries of its second orientations
  gl::Texture orient_samples_linear_;  // their buffer copy, when the driver's buffer textures hold a chunk
  bool samples_in_buffer_ = false;     // windows_ and best_ read orient_samples_linear_
  gl::Texture order_;                  // gather's upload of the kept keypoints' order
  gl::Texture lattice_;                // the orientation lattice (cpu::orientation_lattice)
  gl::Framebuffer samples_target_, windows_target_, angles_target_;
  gl::Texture raw_[2], final_[2];  // [1] only with extended
  gl::Framebuffer raw_target_, final_target_;
  gl::Texture scales_;  // 1 / norm per descriptor (descriptor/norms.frag)
  gl::Framebuffer scales_target_;
};

}  // namespace glsurf
