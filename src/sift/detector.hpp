// The GPU SIFT detector (Lowe 2004; conventions: docs/notes/sift.md): scale
// space -> DoG extrema refined -> HistoPyramid point list -> keypoints,
// every stage a chain of fragment passes, with two readbacks per image: the
// count, then the list.
//
//   gl::Context ctx = gl::Context::headless();
//   sift::GpuSift sift(ctx, SiftConfig{});
//   std::vector<KeyPoint> keypoints = sift.detect(image);
//
// Stages are configured for an image size on the first image of that size
// and reused, without allocation, for every later image of that size.
//
// Keypoints come in image coordinates with docs/notes/sift.md's fields
// (angle -1), sorted strongest first (sort_by_strength), as
// cpu::sift::detect gives them. With max_features = N the strongest are
// chosen on the GPU (surf/select.hpp, on |D^|) before compaction, N and a
// margin for copies (below), so only they and exact ties cross the bus; the
// keypoints are then cut to N. max_features = 0 keeps every extremum the
// list holds (65,536); where there are more, the strongest 65,536
// (truncated_last_frame()).
//
// After detect() the scale space and the point list stay on the GPU for
// orientation and description: gaussian() with gaussian_layout() (octave
// k's level i at gaussian_layout().rect(k, i)), and point_list() (entries
// 0 .. count - 1, docs/notes/sift.md "GPU data between stages"). The list may
// hold an extremum twice where two candidates moved onto the same sample
// that is not a candidate of its own (sift/refine.frag drops the others):
// detect() lists it once, as the CPU reference does; duplicates_last_frame()
// counts the copies it dropped.
#pragma once

#include <string>
#include <vector>

#include "gl/context.hpp"
#include "gl/pass.hpp"
#include "sift/descriptor.hpp"
#include "sift/extrema.hpp"
#include "sift/orientation.hpp"
#include "sift/scale_space.hpp"
#include "surf/compact.hpp"
#include "surf/select.hpp"

namespace glsurf::sift {

class GpuSift {
 public:
  // Every GL object belongs to `context`, which the constructor makes
  // current; every later call throws glsurf::Error unless it is current on
  // the calling thread. Throws glsurf::Error for a configuration outside
  // cpu::sift::valid_config, max_features above 2^20, or a blur wider than
  // kMaxBlurRadius.
  GpuSift(const gl::Context& context, const SiftConfig& config,
          const gl::ShaderSource& shaders = gl::ShaderSource::from_environment());

  // Why the detector refuses a width x height image ("" when it takes it):
  // no octave (too small), or an atlas larger than the driver's textures
  // (the Gaussian atlas is W texels of 16 bytes wide when doubled). Allocates nothing.
  std::string size_problem(int width, int height) const;

  // Keypoints in image coordinates, strongest first, max_features applied.
  // Throws glsurf::Error for an image size_problem refuses.
  std::vector<KeyPoint> detect(const GrayImage& image);

  // detect(), then the orientations of every list entry (sift/orientation.hpp)
  // and one descriptor per orientation (sift/descriptor.hpp), as
  // cpu::sift::detect_and_compute gives them: one entry per orientation,
  // strongest first, max_features counting entries (the N strongest
  // extrema and their ties, each with its orientations, then cut to N
  // entries). Four transfers: the count, the list with its angles, the
  // oriented list up (the entries kept, one per angle), the descriptors.
  Features detect_and_compute(const GrayImage& image);

  // The last detection's data on the GPU (valid until the next detect()).
  const gl::Texture& gaussian() const { return scale_space_.gaussian(); }
  const AtlasLayout& gaussian_layout() const { return scale_space_.gaussian_layout(); }
  const std::vector<cpu::sift::OctaveSize>& octaves() const { return scale_space_.octaves(); }
  const gl::Texture& dog() const { return scale_space_.dog(); }
  const AtlasLayout& dog_layout() const { return scale_space_.dog_layout(); }
  // The point list: entries 0 .. count - 1, 1024 a row, RGBA32F (x, y,
  // sigma, D^) in octave pixels and (k, layer, offset_s, 0), in the
  // HistoPyramid's order (not sorted); with max_features, the strongest N
  // and the margin for copies.
  struct PointList {
    const gl::Texture* points = nullptr;
    const gl::Texture* where = nullptr;
    int count = 0;
  };
  PointList point_list() const { return {&compact_.list(), &compact_.list_where(), listed_}; }
  const ExtremaStage& extrema() const { return extrema_; }

  // Extrema the atlas held (before any cut to the list's capacity).
  int candidates_last_frame() const { return candidates_; }
  // Whether the list could not hold every extremum (max_features = 0).
  bool truncated_last_frame() const { return truncated_; }
  // List entries detect() dropped as copies of another.
  int duplicates_last_frame() const { return duplicates_; }
  int capacity() const { return compact_.capacity(); }
  const SiftConfig& config() const { return config_; }
  gl::PassRunner& runner() { return runner_; }

 private:
  void configure(int width, int height);
  // The stages up to the point list; returns how many entries it holds.
  int find(const GrayImage& image);

  // Into oriented_points_ and oriented_where_: n entries of the point
  // list's layout with the angle in place of D^.
  void upload_oriented(const std::vector<float>& points, const std::vector<float>& where, int n);

  SiftConfig config_;
  ScaleSpaceStage scale_space_;
  ExtremaStage extrema_;
  CompactStage compact_;
  SelectStage select_;
  OrientationStage orientation_;
  DescriptorStage descriptor_;
  gl::Texture oriented_points_, oriented_where_;  // rows as needed, kept for later images
  gl::PassRunner runner_;
  int width_ = 0, height_ = 0;
  int candidates_ = 0, listed_ = 0, duplicates_ = 0;
  bool truncated_ = false;
  gl::ContextTag context_;
};

// The list entries (as read back: 4 floats each of points and where) as
// keypoints in image coordinates, in list order, for `octaves`.
std::vector<KeyPoint> list_keypoints(const std::vector<float>& points, const std::vector<float>& where,
                                     const std::vector<cpu::sift::OctaveSize>& octaves);

}  // namespace glsurf::sift
