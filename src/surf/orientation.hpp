// GPU orientation of the keypoints of the point list (Bay et al. 2008, 3.3;
// rules and parameters: src/cpu/descriptor.hpp), and the regrouped integral
// image that it and the descriptor stage read.
//
//   quads            the integral image regrouped: texel (x+1, y+1) holds the
//                    four values around corner (x, y), clamped into the image,
//                    so one fetch serves a corner of a sub-pixel box (4x
//                    fewer fetches; 16 bytes per pixel, rebuilt once per
//                    run of the integral stage)
//   samples          197 weighted gradients (a cross of boxes ~2.4s x 1.4s,
//                    lattice 2s/3) per keypoint, two to a texel, in an
//                    11 x 9 tile (the passes after it take their
//                    directions); the rows of tiles of keypoints with
//                    cpu::orientation_inside (run()'s `inside`) without
//                    the clipping arithmetic, the others with it
//   windows          the window sums around 32 candidate directions (64
//                    with second orientations), the largest of each 32
//                    neighbouring ones
//   best             the largest of those, recentred on its own sum (with
//                    Aitken leaps) until it settles
//                    -> angle per keypoint
//                    (with DetectorConfig::second_orientation, windows also
//                    keeps each group's two largest local maxima, and best
//                    recentres the largest but the best too -> a second
//                    angle or -1, which second_orientations() reads back)
//
// Orientation runs in chunks of kChunk keypoints so that its samples need
// at most 1024 x 405 texels whatever the list's capacity. Upright (U-SURF)
// skips it: angles are 0. Per-keypoint data lives in 1024-wide textures
// (shaders/common/blocks.glsl), keypoint k's run of B texels at linear index
// k * B, except the samples: an 11 x 9 tile per keypoint, so that fragments
// shaded together read around one keypoint (docs/notes/orientation.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/descriptor.hpp"
#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/integral.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

// The integral image regrouped four corners to a texel (RGBA32UI), and its
// buffer-texture copy where the driver's buffer textures hold it
// (common/haar.glsl reads either, as the programs that read it are built).
class IntegralQuads {
 public:
  explicit IntegralQuads(const gl::ShaderSource& shaders);
  // -> texture(), unless it holds this result of `integral` already
  // (IntegralStage::generation()).
  void update(gl::PassRunner& runner, IntegralStage& integral);
  const gl::Texture& texture() const { return in_buffer_ ? buffer_ : quads_; }
  bool in_buffer() const { return in_buffer_; }
  glm::ivec2 size() const { return size_; }
  // Caps the buffer texture below GL_MAX_TEXTURE_BUFFER_SIZE (< 0: the
  // driver's limit; tests: 0 makes every reader fetch 2-D); the quads follow
  // at the next update().
  void limit_buffer_texels(int texels) {
    buffer_limit_ = texels;
    generation_ = 0;
  }
  // Makes the buffer copy of the quads a view of `storage` (gl::Texture::buffer_view,
  // RGBA32UI) where it is large enough, instead of a buffer of its own: the
  // detector lends one buffer to the Hessian, suppression and the quads, which
  // fill and read it in turn. nullptr: a buffer of its own. The quads
  // follow at the next update(). A lent buffer holds the quads until another
  // stage writes it: the detector runs the Hessian only on a new integral
  // image, whose new generation makes update() copy them again.
  void share_buffer(const gl::Texture* storage) {
    shared_ = storage;
    buffer_ = gl::Texture();
    generation_ = 0;
  }

 private:
  // quads: the integral image's four values around each corner, clamped
  // into the image (orientation/quads.frag); LINEAR_FETCH reads the
  // integral's buffer copy.
  class QuadsPass : public gl::Pass {
   public:
    QuadsPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "orientation_quads", "orientation/quads.frag", defines) {}
    QuadsPass& integral(const gl::Texture& integral, glm::ivec2 size) {
      input("u_integral", integral);
      return uniform("u_integral_size", size), *this;
    }
    // The quads' row that the target's row 0 holds.
    QuadsPass& first_row(int row) { return uniform("u_first_row", row), *this; }
  };

  QuadsPass pass_, linear_pass_;
  glm::ivec2 size_{0, 0};  // (W + 2) x (H + 2)
  // With the buffer copy, a band of the quads' rows (scratch_band_rows), drawn
  // and copied into its place band by band; else all of them, read 2-D.
  gl::Texture quads_;
  gl::Framebuffer target_;
  gl::Texture buffer_;
  bool in_buffer_ = false;
  std::uint64_t generation_ = 0;  // IntegralStage::generation() they hold (0: none)
  int buffer_limit_ = -1;
  const gl::Texture* shared_ = nullptr;  // share_buffer()
};

class OrientationStage {
 public:
  static constexpr int kChunk = 4096;

  OrientationStage(const gl::ShaderSource& shaders, const DetectorConfig& config);
  // Bytes per list entry of capacity that configure() allocates: the angle,
  // with second orientations the second angle (detector.hpp:
  // software_list_bytes).
  static double bytes_per_entry(const DetectorConfig& config);
  void configure(int capacity);
  int capacity() const { return capacity_; }  // 0 before configure()

  // Angles of list entries 0 .. count - 1 (0 everywhere when upright). List
  // entries 0 .. inside - 1 must have cpu::orientation_inside: their samples
  // are taken without clipping (whole rows of their tiles), the others' with
  // it.
  void run(gl::PassRunner& runner, const gl::Texture& list, const IntegralQuads& quads, int count,
           int inside = 0);
  // Given angles (degrees ccw) for list entries 0 .. angles.size() - 1,
  // which angles() then holds: no passes (Angles::Keep).
  void set(gl::PassRunner& runner, const std::vector<float>& angles);

  // Second orientations (DetectorConfig::second_orientation) of the last
  // run(): list entry source[i] at angle[i] (degrees ccw), in list order.
  struct SecondOrientations {
    std::vector<int> source;
    std::vector<float> angle;
  };
  // Reads them back (the one wait of a detection with second orientations);
  // empty without them.
  SecondOrientations second_orientations(int count) const;

  // Angle per list entry, degrees ccw (R32F, 1024 wide).
  const gl::Texture& angles() const { return angles_; }
  // With second orientations, the second angle per list entry of the last
  // run() (R32F like angles(), -1 where there is none); nullptr without them.
  const gl::Texture* second_angles() const { return second_orientation() ? &second_angles_ : nullptr; }
  // Reads back `count` angles.
  std::vector<float> read(int count) const;

  // Caps the samples' buffer texture (as IntegralQuads's); follows at the
  // next configure().
  void limit_buffer_texels(int texels) {
    buffer_limit_ = texels;
    capacity_ = 0;  // configure again
  }

 private:
  bool second_orientation() const { return config_.second_orientation > 0 && !config_.upright; }
  // Window directions tried (cpu::orientation_candidates), and the windows
  // pass's texels per keypoint.
  int candidates() const {
    return cpu::orientation_candidates(second_orientation() ? config_.second_orientation : 0);
  }
  int window_texels() const;
  // samples_ and samples_inside_ for the quads' kind.
  void build_samples(const IntegralQuads& quads);

  // samples (3.3): the 197 weighted gradients of each keypoint of a chunk,
  // two to a texel of its 11 x 9 tile; variants LINEAR_FETCH (the quads'
  // buffer copy) and INSIDE (no clipping).
  class SamplesPass : public gl::Pass {
   public:
    SamplesPass() = default;
    SamplesPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "orientation_samples", "orientation/samples.frag", defines) {}
    SamplesPass& list(const gl::Texture& list) { return input("u_list", list), *this; }
    SamplesPass& quads(const IntegralQuads& quads) {
      input("u_quads", quads.texture());
      return uniform("u_quads_size", quads.size()), *this;
    }
    // The lattice's points and weights, its spacing and the differences'
    // offset, in s.
    SamplesPass& lattice(const gl::Texture& points, float step, float offset) {
      input("u_lattice", points);
      uniform("u_step", step);
      return uniform("u_offset", offset), *this;
    }
    // The chunk: `count` keypoints from list entry `first` on.
    SamplesPass& chunk(int first, int count) {
      uniform("u_first", first);
      return uniform("u_count", count), *this;
    }
  };
  // windows (3.3): the window sums around each keypoint's candidate
  // directions, the largest of each PER_FRAGMENT neighbouring ones (SECOND:
  // and their two largest local maxima).
  class WindowsPass : public gl::Pass {
   public:
    WindowsPass() = default;
    WindowsPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "orientation_windows", "orientation/windows.frag", defines) {}
    WindowsPass& samples(const gl::Texture& samples) { return input("u_samples", samples), *this; }
    WindowsPass& count(int keypoints) { return uniform("u_count", keypoints), *this; }
    WindowsPass& candidates(int directions) { return uniform("u_candidates", directions), *this; }
  };
  // best (3.3): the largest window, recentred on its own sum until it
  // settles -> each keypoint's angle (SECOND: and its second angle or -1).
  class BestPass : public gl::Pass {
   public:
    BestPass() = default;
    BestPass(const gl::ShaderSource& shaders, const std::vector<std::string>& defines)
        : Pass(shaders, "orientation_best", "orientation/best.frag", defines) {}
    BestPass& windows(const gl::Texture& windows, int candidates) {
      input("u_windows", windows);
      return uniform("u_candidates", candidates), *this;
    }
    BestPass& samples(const gl::Texture& samples) { return input("u_samples", samples), *this; }
    // The chunk: `count` keypoints from list entry `first` on.
    BestPass& chunk(int first, int count) {
      uniform("u_count", count);
      return uniform("u_first", first), *this;
    }
    // The recentring: at most `max_sums` sums, settled below `settled`
    // radians, steps of at most `leap` radians.
    BestPass& recentring(int max_sums, float settled, float leap) {
      uniform("u_max_sums", max_sums);
      uniform("u_settled", settled);
      return uniform("u_leap", leap), *this;
    }
    // SECOND only: the windows pass's local maxima, the ratio to the best
    // sum a second orientation needs and its separation from the first
    // (degrees).
    BestPass& second(const gl::Texture& peaks, const gl::Texture& next_peaks, float ratio, float separation) {
      input("u_peaks", peaks);
      input("u_next_peaks", next_peaks);
      uniform("u_second_ratio", ratio);
      return uniform("u_separation", separation), *this;
    }
  };

  DetectorConfig config_;
  gl::ShaderSource shaders_;  // samples_ is rebuilt for the quads' kind, windows_ and best_ for the samples'
  SamplesPass samples_;
  WindowsPass windows_;
  BestPass best_;
  SamplesPass samples_inside_;   // samples_ for keypoints with cpu::orientation_inside
  int samples_quads_kind_ = -1;  // IntegralQuads::in_buffer() samples_ was built for (-1: not built)
  int capacity_ = 0;
  int buffer_limit_ = -1;  // < 0: GL_MAX_TEXTURE_BUFFER_SIZE
  gl::Texture samples_tex_, windows_tex_, angles_;
  gl::Texture samples_linear_;  // the samples' buffer copy, when the driver's buffer textures hold a chunk
  bool samples_in_buffer_ = false;  // windows_ and best_ read samples_linear_
  // With second orientations: the windows pass's local maxima and the best
  // pass's second angles.
  gl::Texture peaks_[2], second_angles_;
  gl::Texture lattice_;  // the orientation lattice (cpu::orientation_lattice)
  gl::Framebuffer samples_target_, windows_target_, angles_target_;
};

}  // namespace glsurf
