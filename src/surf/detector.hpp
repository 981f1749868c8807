// The GPU SURF detector: integral image -> Hessian responses -> extrema ->
// HistoPyramid point list -> keypoints, every stage a chain of fragment
// passes (surf/*.hpp), with two readbacks per image: the count, then the list.
//
//   gl::Context ctx = gl::Context::headless();
//   DetectorConfig config;
//   config.hessian_threshold = 400;
//   GpuDetector detector(ctx, config);
//   std::vector<KeyPoint> keypoints = detector.detect(image);
//
// Stages are configured for an image size on the first image of that size and
// reused, without allocation, for every later image of the same size.
//
// Results are sorted strongest first (sort_by_strength), the order of the CPU
// reference. With max_features = N the N strongest are chosen on the GPU
// (select.hpp) before compaction, so only they cross the bus. max_features = 0
// keeps every keypoint the list can hold (65,536); when there are more, the
// strongest 65,536 are kept and truncated_last_frame() says so. Where exact
// ties with the N-th (or 65,536th) strongest response are more than the list
// has room for, every stronger keypoint is kept and the ties fill the rest in
// the list's own (deterministic) order.
#pragma once

#include <memory>
#include <vector>

#include "gl/context.hpp"
#include "gl/pass.hpp"
#include "surf/compact.hpp"
#include "surf/descriptor.hpp"
#include "surf/detector_steps.hpp"
#include "surf/extrema.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"
#include "surf/keypoint.hpp"
#include "surf/orientation.hpp"
#include "surf/select.hpp"

namespace glsurf {

// On a software renderer (Mesa's llvmpipe) the detector's textures live in
// host memory: about kSoftwareBytesPerPixel a pixel for detection (the
// integral image and its scans, det(H) and the Laplacian's signs, the buffer
// lent in turn to the cross strip's, det(H)'s and the quads' copies, the
// bands the strip and the quads are drawn in, the integral image's buffer
// copy, the candidate atlas), kSoftwareComputeBytesPerPixel for compute()
// of given keypoints (image, integral, quads), plus kSoftwareFixedBytes
// whatever the size (llvmpipe's compiled shaders, the point lists). Each is
// the measured maximum with a margin (docs/notes/memory.md).
// Why a width x height image cannot fit in `available` bytes then, at
// `bytes_per_pixel`, or "" when it can. The detector refuses such an image
// where the kernel says how much is available (/proc/meminfo), rather than
// be killed part-way by it; from its second call on, the fixed part is
// resident and counted twice, on the safe side.
constexpr double kSoftwareBytesPerPixel = 80;
constexpr double kSoftwareComputeBytesPerPixel = 45;
constexpr double kSoftwareFixedBytes = 220e6;
// kSoftwareBytesPerPixel is for one group of four layers per octave (the
// default two layers per octave, and one); each further group (--layers 3 to
// 6: two, 7 to 10: three) adds the textures of its layers, counted as
// kSoftwareGroupBytesPerPixel (docs/notes/memory.md).
constexpr double kSoftwareGroupBytesPerPixel = 110;
double software_bytes_per_pixel(const DetectorConfig& config);
std::string host_memory_problem(int width, int height, double available,
                                double bytes_per_pixel = kSoftwareBytesPerPixel,
                                double fixed_bytes = kSoftwareFixedBytes);
// What comes on top of kSoftwareFixedBytes, which was measured with the
// default configuration and its list (65,536 entries of 64 values, or fewer
// where the candidate atlas has fewer texels): for `entries` list entries
// with `config`'s descriptors (extended, second orientations) against the
// `measured_entries` of that default, at the lists' and the description
// stage's bytes per entry (OrientationStage and DescriptorStage::bytes_per_entry). 0 when it needs
// no more. The detector passes its list's capacity (max_features above
// 65,536), bounded by the atlas as the list is; compute() the description
// stage's.
double software_list_bytes(const DetectorConfig& config, double entries, double measured_entries);

class GpuDetector {
 public:
  // Every GL object of the detector belongs to `context`, which the
  // constructor makes current (as GpuMatcher's does). Every later call throws
  // glsurf::Error, before it makes or draws anything, unless that context is
  // current on the calling thread (gl::ContextTag).
  // `steps` runs the Hessian and suppression steps: nullptr for the
  // production stages, else a baseline's (detector_steps.hpp; benchmarks and
  // tests), which gives the same keypoints.
  GpuDetector(const gl::Context& context, const DetectorConfig& config,
              const gl::ShaderSource& shaders = gl::ShaderSource::from_environment(),
              std::unique_ptr<DetectorSteps> steps = nullptr);

  // Why the detector refuses a width x height image, or "" when it takes
  // it: smaller than the smallest filter, needing a texture larger than the
  // driver allows (the integral image (W + 2) x (H + 2) texels with its
  // border, the candidate atlas about 1.5 W wide with two layers per octave
  // and 3 W with three or four), or a filter beyond exact 32-bit box sums.
  // Asks the current context for its limit and allocates nothing: commands
  // call it before any work, and every stage is sized only after it passes.
  std::string size_problem(int width, int height) const;
  // As size_problem, for compute() alone, which needs only the integral
  // image and the description stage: no smallest size, no atlas.
  std::string compute_size_problem(int width, int height) const;

  // Throws glsurf::Error with size_problem's answer for an image it refuses.
  std::vector<KeyPoint> detect(const GrayImage& image);
  // detect, then orientation (unless config.upright) and descriptors on the
  // GPU, straight from the point list (whose first entries, the keypoints
  // whose orientation samples need no clipping, are oriented without it);
  // the list, angles and descriptors are read back once every pass has been
  // issued. With `resident`, the descriptors stay on the GPU instead, in the
  // returned keypoints' order, for GpuMatcher::match: they are not read back
  // (the Features come without them, descriptor_size 0).
  Features detect_and_compute(const GrayImage& image, DescriptorTextures* resident = nullptr);
  // Orientation (unless config.upright, or angles is Keep) and descriptors
  // of given keypoints, as cpu::compute: they keep their order and every
  // field but the angle (and that too with Keep, which skips the
  // orientation passes). Throws glsurf::Error naming the first keypoint
  // cpu::keypoint_problem refuses, with cpu::angles_problem's reason, or for
  // an image compute_size_problem refuses. Any number of keypoints, in
  // chunks of the description stage's capacity (the point list's after a
  // detection, 65,536 before any). Afterwards last_on_gpu() is empty.
  Features compute(const GrayImage& image, std::vector<KeyPoint> keypoints, Angles angles = Angles::Compute);

  // Detection (and orientation unless upright) left on the GPU for drawing:
  // the point list (RGBA32F x, y, size * laplacian, response) and the angles
  // (R32F, degrees ccw), entries 0 .. count - 1, 1024 per row. Only the
  // count crosses the bus. Valid until the next detection.
  struct OnGpu {
    const gl::Texture* list = nullptr;
    const gl::Texture* angles = nullptr;
    int count = 0;
    // With config.second_orientation: each entry's second angle, -1 where
    // it has none (OrientationStage::second_angles); else nullptr.
    const gl::Texture* second_angles = nullptr;
  };
  OnGpu detect_on_gpu(const GrayImage& image);
  // The point list and angles of the last detection (list entries, before
  // any trimming to max_features; the keypoints whose orientation samples
  // need no clipping first, inside_last_frame() of them). After detect(),
  // which orients nothing, angles and second_angles are nullptr; after
  // compute() too, and the count is 0.
  OnGpu last_on_gpu() const {
    return {&compact_.list(), oriented_ ? &orientation_.angles() : nullptr, listed_,
            oriented_ ? orientation_.second_angles() : nullptr};
  }

  // The memory a detection of a width x height image takes, at the rates
  // the host-memory check uses on a software renderer (also the textures'
  // sizes on a GPU): bytes_per_pixel() a pixel plus fixed_bytes(), the point
  // list's entries counted at their most. held_bytes(): what the detector's
  // textures hold now, given back as it configures for another size.
  double bytes_per_pixel() const { return software_bytes_per_pixel(config_); }
  double fixed_bytes() const;
  double held_bytes() const;
  // Whether the driver is a software renderer, whose textures are host memory.
  bool host_textures() const { return host_textures_; }
  // Keeps only the keypoints in `core` from the next detection on (a tile's,
  // surf/tiles.hpp; max_features then counts only those); the default
  // TileCore keeps all.
  void set_core(const TileCore& core) { extrema_.set_core(core); }

  const DetectorConfig& config() const { return config_; }
  gl::PassRunner& runner() { return runner_; }
  // Tests: caps the buffer textures of the Hessian, suppression and
  // description stages (0: every input 2-D, as for an image too large for
  // the driver's buffer textures; < 0: the driver's limit). Takes effect at
  // the next detection.
  void limit_buffer_texels(int texels) {
    hessian_.limit_buffer_texels(texels);
    extrema_.limit_buffer_texels(texels);
    quads_.limit_buffer_texels(texels);
    orientation_.limit_buffer_texels(texels);
    width_ = height_ = integral_width_ = integral_height_ = 0;  // configure again
  }
  int candidates_last_frame() const { return candidates_; }  // before trimming ties
  // How many of the last detection's first list entries have
  // cpu::orientation_inside (and were, or will be, oriented without clipping).
  int inside_last_frame() const { return inside_listed_; }
  bool truncated_last_frame() const { return truncated_; }

 private:
  void configure(int width, int height);
  // The image texture and the integral image alone (compute() needs no
  // more); a new size leaves the detection stages unconfigured.
  void configure_integral(int width, int height);
  // Into image_, packed when image_ is (the 1-D integral image's input).
  void upload_image(const GrayImage& image);
  // Throws when a software renderer's host memory cannot hold the stages
  // (all, or compute()'s image and integral) for a width x height image.
  enum class Stages { All, Integral };
  void check_host_memory(int width, int height, Stages stages) const;
  // Everything up to the filled point list; returns the entries to read.
  // Its first inside_listed_ entries have cpu::orientation_inside (the
  // compaction lists them first).
  int find(const GrayImage& image);
  std::vector<KeyPoint> read_keypoints(int listed) const;
  // Into uploaded_list_: n keypoints in the point list's layout.
  void upload_list(const KeyPoint* keypoints, int n);
  // The order that puts the n keypoints with cpu::orientation_inside in a
  // width x height image ahead of the others, keeping the order within
  // each (order[i]: the keypoint to describe i-th); returns how many have
  // it. Upright (no orientation samples): the keypoints' own order, 0.
  int inside_first(const KeyPoint* keypoints, int n, int width, int height, std::vector<int>& order) const;

  DetectorConfig config_;
  gl::PassRunner runner_;
  // The buffer lent to the Hessian (cross strip), suppression (det(H)) and
  // the quads for their buffer copies, which each fills before it reads it
  // (share_buffer()): RGBA32UI, the quads' (W + 2) x (H + 2) texels, the
  // largest of the three. Made with the integral image, where the driver's
  // buffer textures hold it. On the heap, so that the stages' views of it
  // survive a move of the detector; declared before them.
  std::unique_ptr<gl::Texture> linear_scratch_ = std::make_unique<gl::Texture>();
  IntegralStage integral_;
  HessianStage hessian_;
  ExtremaStage extrema_;
  CompactStage compact_;
  SelectStage select_;
  IntegralQuads quads_;
  OrientationStage orientation_;
  DescriptorStage descriptor_;
  // The Hessian and suppression steps; never null (DetectorSteps itself runs hessian_ and extrema_).
  std::unique_ptr<DetectorSteps> steps_;
  gl::Texture image_;  // R8, or packed RGBA8 for the 1-D integral image (integral.hpp)
  std::vector<std::uint8_t> packing_scratch_;  // rows padded for packing
  // A point list from the host: compute()'s chunk of given keypoints,
  // reordered by inside_first.
  gl::Texture uploaded_list_;
  bool host_textures_ = false;                    // a software renderer: textures live in host memory
  gl::ContextTag context_;                        // every call checks that it is current
  int width_ = 0, height_ = 0;                    // every stage is configured for this size
  int integral_width_ = 0, integral_height_ = 0;  // the image texture and integral stage are
  int stages_width_ = 0, stages_height_ = 0;      // the detection stages' textures were last made for
  int candidates_ = 0;
  int listed_ = 0;
  int inside_listed_ = 0;  // the first entries of the list that have cpu::orientation_inside
  bool oriented_ = false;  // the angles are the listed entries'
  bool truncated_ = false;
};

}  // namespace glsurf
