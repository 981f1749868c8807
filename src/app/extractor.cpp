#include "app/extractor.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/cli.hpp"
#include "cpu/sift.hpp"
#include "gl/context.hpp"
#include "sift/detector.hpp"
#include "surf/detector.hpp"
#include "surf/memory.hpp"
#include "surf/tiles.hpp"

namespace glsurf::app {

namespace {

const std::vector<const char*> kSurfOnly = {"--threshold", "--sample-step", "--upright", "--extended",
                                            "--second-orientation"};
const std::vector<const char*> kSiftOnly = {"--contrast-threshold", "--edge-threshold", "--first-octave",
                                            "--root-sift"};

}  // namespace

OptionTable sift_table() {
  const SiftConfig sift;
  return {
      text("--features", "surf|sift", "surf",
           "surf: SURF (Bay et al.), 64 or 128 signed values; sift: SIFT (Lowe 2004), 128 values (its own "
           "options below; --octaves, --layers and --max-features apply to both)"),
      number("--contrast-threshold", "C", sift.contrast_threshold, 0.0f, 1.0f,
             "SIFT: keep extrema with |DoG| * layers >= C, grey levels 0..1 (OpenCV's contrastThreshold)"),
      number(
          "--edge-threshold", "R", sift.edge_threshold, 1.0f, 1000.0f,
          "SIFT: drop extrema whose principal curvatures differ more than R to 1 (OpenCV's edgeThreshold)"),
      integer("--first-octave", "O", sift.first_octave, -1, 0,
              "SIFT: -1 doubles the image first, as OpenCV and COLMAP do; 0 starts at its size (4x fewer "
              "pixels, fewer small keypoints)"),
      flag("--root-sift",
           "SIFT: RootSIFT descriptors (L1-normalised, square-rooted; Arandjelovic & Zisserman)"),
  };
}

FeatureChoice feature_options(Args& args) {
  FeatureChoice choice;
  const std::string features = args.option("--features");
  if (features != "surf" && features != "sift")
    throw UsageError("--features must be surf or sift, not '" + features + "'");
  choice.type = features == "sift" ? FeatureType::Sift : FeatureType::Surf;
  const size_t before = args.taken().size();
  choice.surf = detector_options(args);
  choice.sift.contrast_threshold = args.option_float("--contrast-threshold");
  choice.sift.edge_threshold = args.option_float("--edge-threshold");
  choice.sift.first_octave = args.option_int("--first-octave");
  choice.sift.root_sift = args.flag("--root-sift");
  const std::vector<std::string> given(args.taken().begin() + static_cast<std::ptrdiff_t>(before),
                                       args.taken().end());
  const auto is_given = [&](const char* option) {
    return std::find(given.begin(), given.end(), option) != given.end();
  };
  for (const char* option : choice.type == FeatureType::Sift ? kSurfOnly : kSiftOnly) {
    if (is_given(option) && choice.misplaced.empty()) {
      choice.misplaced = std::string(option) + " is " +
                         (choice.type == FeatureType::Sift ? "SURF's" : "SIFT's") +
                         " option; it does not apply to --features " + features;
    }
  }
  choice.sift.max_features = choice.surf.max_features;
  if (is_given("--octaves")) choice.sift.n_octaves = choice.surf.n_octaves;
  if (is_given("--layers")) choice.sift.n_octave_layers = choice.surf.n_octave_layers;
  return choice;
}

void check_feature_options(const FeatureChoice& choice) {
  if (!choice.misplaced.empty()) throw UsageError(choice.misplaced);
}

std::string feature_signature(const FeatureChoice& choice) {
  if (choice.type == FeatureType::Surf) {
    const DetectorConfig& c = choice.surf;
    char text[256];
    std::snprintf(
        text, sizeof text,
        "surf threshold=%g octaves=%d layers=%d max-features=%d extended=%d upright=%d sample-step=%d "
        "second-orientation=%g",
        c.hessian_threshold, c.n_octaves, c.n_octave_layers, c.max_features, c.extended ? 1 : 0,
        c.upright ? 1 : 0, c.first_step, c.second_orientation);
    return text;
  }
  const SiftConfig& c = choice.sift;
  char text[256];
  std::snprintf(text, sizeof text,
                "sift contrast-threshold=%g edge-threshold=%g octaves=%d layers=%d sigma=%g first-octave=%d "
                "max-features=%d root-sift=%d",
                c.contrast_threshold, c.edge_threshold, c.n_octaves, c.n_octave_layers, c.sigma,
                c.first_octave, c.max_features, c.root_sift ? 1 : 0);
  return text;
}

Extractor::Extractor(const FeatureChoice& choice, const Tiling& tiling, const gl::Context* context)
    : choice_(choice), tiling_(tiling), context_(context) {
  renew();
}

Extractor::~Extractor() = default;

void Extractor::renew() {
  surf_gpu_.reset();
  sift_gpu_.reset();
  if (!context_) return;
  if (choice_.type == FeatureType::Sift)
    sift_gpu_ = std::make_unique<sift::GpuSift>(*context_, choice_.sift);
  else
    surf_gpu_ = std::make_unique<GpuDetector>(*context_, choice_.surf);
}

void check_image_size(const std::string& name, const GrayImage& image, const FeatureChoice& choice,
                      const Tiling& tiling) {
  if (choice.type == FeatureType::Surf) {
    check_image_size(name, image, choice.surf, tiling, nullptr);
    return;
  }
  std::string why = cpu::sift::image_size_problem(image.width, image.height, choice.sift);
  if (why.empty()) {
    why = memory_problem(image.width, image.height, cpu::sift::bytes_per_pixel(choice.sift),
                         tiling.memory_budget >= 0 ? tiling.memory_budget : available_host_memory(),
                         "for SIFT on the CPU");
  }
  if (!why.empty()) throw Error(name + ": " + why);
}

void Extractor::check_image(const std::string& name, const GrayImage& image) const {
  if (choice_.type == FeatureType::Surf) {
    check_image_size(name, image, choice_.surf, tiling_, surf_gpu_.get());
    return;
  }
  if (!sift_gpu_) return check_image_size(name, image, choice_, tiling_);
  std::string why = cpu::sift::image_size_problem(image.width, image.height, choice_.sift);
  if (!why.empty()) throw Error(name + ": " + why);
  why = sift_gpu_->size_problem(image.width, image.height);
  if (!why.empty()) {
    throw Error(name + ": " + why + "; SIFT is not tiled: try " +
                (choice_.sift.first_octave < 0 ? "--first-octave 0 (not doubled) or " : "") +
                "--backend cpu");
  }
}

int Extractor::tile_side(const GrayImage& image) const {
  if (choice_.type == FeatureType::Sift) return 0;
  return glsurf::tile_side(surf_gpu_.get(), choice_.surf, tiling_, image.width, image.height);
}

Features Extractor::describe(const GrayImage& image, const std::string& path, DescriptorTextures* resident,
                             int* tiles, int side) {
  if (choice_.type == FeatureType::Surf)
    return describe_file(surf_gpu_.get(), choice_.surf, tiling_, image, path, resident, tiles, side);
  if (tiles) *tiles = 1;
  try {
    if (!sift_gpu_) return cpu::sift::detect_and_compute(image, choice_.sift);
    Features features = sift_gpu_->detect_and_compute(image);
    if (sift_gpu_->truncated_last_frame()) {
      std::fprintf(stderr,
                   "glsurf: warning: %s: more keypoints than the point list holds; kept the %zu strongest "
                   "(raise --contrast-threshold or set --max-features)\n",
                   one_line(path).c_str(), features.keypoints.size());
    }
    return features;
  } catch (const Error& e) {
    if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
    throw Error(path + ": " + e.what());
  }
}

}  // namespace glsurf::app
