// SURF keypoints and descriptors (Bay et al. 2008), on the GPU or on the CPU.
//
//   glsurf::Context context = glsurf::Context::headless();
//   glsurf::Detector detector = glsurf::Detector::gpu(context, {/*threshold*/ 100});
//   glsurf::Features features = detector.detect_and_compute(glsurf::load_gray("a.png"));
//
// Both give the same keypoints and descriptors within the tolerances that
// glsurf's tests state (docs/reference.md); the CPU one is the reference
// implementation the GPU stages are tested against, and needs no OpenGL.
#pragma once

#include <memory>
#include <vector>

#include "glsurf/types.hpp"

namespace glsurf {

class Context;

// Parameters, named like OpenCV's cv::xfeatures2d::SURF.
//   | field              | default | meaning                                          |
//   |--------------------|---------|--------------------------------------------------|
//   | hessian_threshold  | 100     | keep samples with det(H) > threshold; det is in  |
//   |                    |         | (grey level)^2 of a 0-255 image, as OpenCV's     |
//   | n_octaves          | 4       | octaves of the scale space                       |
//   | n_octave_layers    | 2       | layers searched per octave (each needs the one   |
//   |                    |         | below and above: n_octave_layers + 2 filters)    |
//   | max_features       | 0       | keep the N strongest responses; 0 keeps all      |
//   |                    |         | (the GPU detector takes N up to 2^20, 2^19 with  |
//   |                    |         | extended)                                        |
//   | extended           | false   | 128-value descriptors instead of 64              |
//   | upright            | false   | U-SURF: no orientation (angle 0)                 |
//   | first_step         | 1       | sampling step of the first octave, doubling per  |
//   |                    |         | octave (OpenCV: 1; OpenSURF's init_sample: 2)    |
struct DetectorConfig {
  float hessian_threshold = 100.0f;
  int n_octaves = 4;
  int n_octave_layers = 2;
  int max_features = 0;
  bool extended = false;
  bool upright = false;
  int first_step = 1;
  // > 0: a keypoint whose second-largest peak of window sums reaches this
  // fraction of the largest also gets that orientation, as a second entry
  // (cpu::orientation; SIFT's is 0.8). 0: one orientation. Not with upright.
  // max_features then counts the entries.
  float second_orientation = 0.0f;
};

// SIFT parameters (Lowe 2004), named like OpenCV's cv::SIFT; the
// conventions every stage follows are in docs/notes/sift.md.
//   | field              | default | meaning                                          |
//   |--------------------|---------|--------------------------------------------------|
//   | n_octaves          | 0       | octaves; 0: round(log2(min(W, H))) - 2 -         |
//   |                    |         | first_octave, as OpenCV                          |
//   | n_octave_layers    | 3       | s: DoG layers searched per octave (s + 3         |
//   |                    |         | Gaussian images, s + 2 DoG images)               |
//   | contrast_threshold | 0.04    | keep |D| * s >= threshold, D of a 0..1 image     |
//   | edge_threshold     | 10      | r: keep tr(H)^2 / det(H) < (r + 1)^2 / r         |
//   | sigma              | 1.6     | sigma_0: blur of each octave's first image       |
//   | first_octave       | -1      | -1: the image doubled first (OpenCV, COLMAP); 0  |
//   | max_features       | 0       | keep the N strongest entries; 0 keeps all        |
//   | root_sift          | false   | RootSIFT descriptors (Arandjelovic & Zisserman)  |
struct SiftConfig {
  int n_octaves = 0;
  int n_octave_layers = 3;
  float contrast_threshold = 0.04f;
  float edge_threshold = 10.0f;
  float sigma = 1.6f;
  int first_octave = -1;
  int max_features = 0;
  bool root_sift = false;
};

// Whether and how an image is detected in tiles: one larger than
// memory_budget allows (bytes for one detection, the image's own pixels
// included; < 0: what is available: host memory for the CPU reference and
// software renderers, on a GPU the free video memory its driver reports),
// than the GPU's textures take, or than tile_size x tile_size (> 0) is
// detected in overlapping tiles of the smaller side either asks for, with
// the same keypoints and descriptors (docs/reference.md, Tiles).
struct Tiling {
  double memory_budget = -1;
  int tile_size = 0;
};

class Detector {
 public:
  // Throws glsurf::Error when `config` is out of range (n_octaves 1..16,
  // n_octave_layers 1..64, first_step 1..64, nothing negative,
  // second_orientation in [0, 1] and 0 when upright).
  static Detector gpu(const Context& context, const DetectorConfig& config = {});
  static Detector cpu(const DetectorConfig& config = {});
  // SIFT instead of SURF (features of FeatureType::Sift: 128 values >= 0 a
  // keypoint, one entry per orientation). Throws glsurf::Error when
  // `config` is out of range (n_octaves 0..16, n_octave_layers 1..8,
  // first_octave -1 or 0, thresholds and sigma positive and finite). Not
  // tiled: set_tiling's tile_size is ignored, its memory_budget is checked
  // against the whole image. compute() of given SIFT keypoints runs the CPU
  // reference on either backend (one entry per orientation; a keypoint with
  // an angle >= 0 keeps it).
  static Detector sift_gpu(const Context& context, const SiftConfig& config = {});
  static Detector sift_cpu(const SiftConfig& config = {});

  Detector(Detector&&) noexcept;
  Detector& operator=(Detector&&) noexcept;
  ~Detector();

  // Keypoints only (angle -1), strongest first. Throws glsurf::Error for an
  // image smaller than the smallest filter, or one not even tiles of which
  // fit (Tiling).
  std::vector<KeyPoint> detect(const GrayImage& image);
  // Keypoints with orientation and descriptors, strongest first.
  Features detect_and_compute(const GrayImage& image);
  // Orientation (unless upright) and descriptors of given keypoints, in their
  // order, every field but the angle kept. Throws glsurf::Error for a
  // keypoint outside the image or of a size outside [1, 7680].
  Features compute(const GrayImage& image, std::vector<KeyPoint> keypoints);

  // Tiles for images larger than the budget, the GPU's textures or a
  // tile size (Tiling); the default tiles only where memory or the
  // textures ask for it. Throws glsurf::Error for a negative tile_size.
  void set_tiling(const Tiling& tiling);
  const Tiling& tiling() const;

  // SURF's configuration (the defaults for a SIFT detector), SIFT's (the
  // defaults for a SURF one), and which of the two this detector is.
  const DetectorConfig& config() const;
  const SiftConfig& sift_config() const;
  FeatureType type() const;
  bool on_gpu() const;

 private:
  struct Impl;
  Impl& impl() const;  // throws glsurf::Error after a move
  explicit Detector(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace glsurf
