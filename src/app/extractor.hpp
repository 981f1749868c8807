// What a command detects with: SURF (GpuDetector, or the CPU reference, in
// tiles where memory or the textures ask for it) or SIFT (GpuSift, or the
// CPU reference), on the backend asked for. detect, match, eval and
// detect --database go through it.
#pragma once

#include <memory>
#include <string>

#include "app/args.hpp"
#include "glsurf/detector.hpp"
#include "glsurf/types.hpp"

namespace glsurf {
class GpuDetector;
namespace sift {
class GpuSift;
}
struct DescriptorTextures;
namespace gl {
class Context;
}
}  // namespace glsurf

namespace glsurf::app {

struct FeatureChoice {
  FeatureType type = FeatureType::Surf;
  DetectorConfig surf;
  SiftConfig sift;
  std::string misplaced;  // a usage error: an option of the other detector given
};

// --features surf|sift and the options of the detector it names (SURF's:
// detector_table(); SIFT's: sift_table()). An option of the other detector
// is a usage error, which check_feature_options throws: after Args::finish,
// so that an unknown option is reported first.
FeatureChoice feature_options(Args& args);
void check_feature_options(const FeatureChoice& choice);
// SIFT's own rows (--contrast-threshold, --edge-threshold, --first-octave,
// --root-sift) and --features.
OptionTable sift_table();
// The options in a few words, for the database's detector setting: begins
// with "surf " or "sift ".
std::string feature_signature(const FeatureChoice& choice);

// Throws glsurf::Error "NAME: ..." when `choice`'s detector refuses `image`
// for its size or the memory it needs (on the CPU; Extractor::check_image
// adds a GPU's limits): for a command to refuse it before any work.
void check_image_size(const std::string& name, const GrayImage& image, const FeatureChoice& choice,
                      const Tiling& tiling);

class Extractor {
 public:
  // `context` null: the CPU reference.
  Extractor(const FeatureChoice& choice, const Tiling& tiling, const gl::Context* context);
  ~Extractor();

  // Throws glsurf::Error "NAME: ..." when the detector refuses `image` (its
  // size, or not even tiles of it fit the memory budget or the GPU's textures).
  void check_image(const std::string& name, const GrayImage& image) const;
  // Keypoints and descriptors of `image`, read from `path` (errors name it;
  // a point list too small for every keypoint is a warning on stderr).
  // `resident`, `tiles` and `side` as describe_file (SURF on the GPU only:
  // SIFT's descriptors always come back, in one piece).
  Features describe(const GrayImage& image, const std::string& path, DescriptorTextures* resident = nullptr,
                    int* tiles = nullptr, int side = -1);
  // The tile side describe() will use for `image` (0: one piece).
  int tile_side(const GrayImage& image) const;
  // Whether describe() can leave the descriptors on the GPU (SURF on the GPU).
  bool keeps_on_gpu() const { return surf_gpu_ != nullptr; }
  // A fresh GPU detector after a failure inside one (it may be left half
  // configured for the image it refused).
  void renew();

  const FeatureChoice& choice() const { return choice_; }

 private:
  FeatureChoice choice_;
  Tiling tiling_;
  const gl::Context* context_;
  std::unique_ptr<GpuDetector> surf_gpu_;
  std::unique_ptr<sift::GpuSift> sift_gpu_;
};

}  // namespace glsurf::app
