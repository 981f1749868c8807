// glsurf match's inputs: images, or feature files with descriptors.
#include <cmath>
#include <filesystem>

#include "app/cli.hpp"
#include "app/match.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace {

constexpr float kMaxDescriptorValue = 1e12f;

// A feature file with descriptors that both backends can match.
Features read_described(const std::string& path) {
  FeatureFormat format = FeatureFormat::Txt;
  Features f = read_features_file(path, &format);
  if (f.descriptor_size == 0)
    throw Error(path + ": keypoints without descriptors (D = 0): run describe first");
  // Squared distances of 1e30 or more count as no candidate on both
  // backends (the shaders' "none"), so larger values would match nothing,
  // silently; 1e12 keeps any two of the reader's up to 4,096 values below that.
  for (size_t i = 0; i < f.descriptors.size(); ++i) {
    if (std::abs(f.descriptors[i]) > kMaxDescriptorValue) {
      const size_t keypoint = i / static_cast<size_t>(f.descriptor_size);
      throw Error(path + ": " + keypoint_location(format, keypoint, f.keypoints.size()) +
                  ": a descriptor value beyond 1e12, too large to match");
    }
  }
  return f;
}

// A piped input is read as an image (to look for a feature file would
// consume it): say so where it is no image format at all.
GrayImage load_image(const std::string& path, const LoadOptions& load, RgbImage* colour) {
  try {
    return load_gray(path, load, colour);
  } catch (const Error& e) {
    std::error_code ec;
    const bool unknown = std::string(e.what()).find("not a supported image") != std::string::npos;
    if (path != "/dev/stdin" || std::filesystem::is_regular_file(path, ec) || !unknown) throw;
    throw Error(std::string(e.what()) + "; a piped input is read as an image: give a feature file by name");
  }
}

}  // namespace

Inputs read_inputs(const Request& r) {
  Inputs in;
  const std::vector<std::string>& images = r.images;
  in.file_a = is_feature_file(images[0]);
  in.file_b = is_feature_file(images[1]);
  const bool file_a = in.file_a, file_b = in.file_b;
  if ((file_a || file_b) && !r.draw_path.empty())
    throw UsageError("--draw needs two images, not feature files");
  if (file_a && file_b && !r.image_options.empty()) {
    throw UsageError(r.image_options.front() +
                     " applies to images; both inputs are feature files, matched as they are");
  }
  if (file_a)
    in.fa = read_described(images[0]);
  else
    in.a = load_image(images[0], r.load, r.draw_path.empty() ? nullptr : &in.colour_a);
  if (file_b)
    in.fb = read_described(images[1]);
  else
    in.b = load_image(images[1], r.load, r.draw_path.empty() ? nullptr : &in.colour_b);
  // Features of one type and descriptors of one length on both sides: a
  // file's are as they are, an image's SURF 64 values (128 with
  // --extended), SIFT 128.
  const FeatureType ta = file_a ? in.fa.type : r.features.type, tb = file_b ? in.fb.type : r.features.type;
  if (ta != tb) {
    const std::string hint =
        file_a == file_b ? "" : std::string(" (add --features ") + to_string(file_a ? ta : tb) + ")";
    throw Error(images[0] + " gives " + to_string(ta) + " features, " + images[1] + " " + to_string(tb) +
                hint);
  }
  const int image_length = r.features.type == FeatureType::Sift ? 128 : descriptor_size(r.features.surf);
  const int da = file_a ? in.fa.descriptor_size : image_length;
  const int db = file_b ? in.fb.descriptor_size : image_length;
  if (da != db) {
    // Where one side is an image, a file of the other standard length needs
    // --extended given or left out.
    const int file_length = file_a ? da : db;
    const bool extended = r.features.surf.extended;
    const std::string hint = file_a == file_b                  ? ""
                             : file_length == 128 && !extended ? " (add --extended)"
                             : file_length == 64 && extended   ? " (leave out --extended)"
                                                               : "";
    throw Error(images[0] + " gives " + std::to_string(da) + "-value descriptors, " + images[1] + " " +
                std::to_string(db) + hint);
  }
  if (r.backend == "gl" && da > GpuMatcher::kMaxDescriptorSize) {
    throw Error(images[file_a ? 0 : 1] + ": " + std::to_string(da) +
                "-value descriptors: the GPU matcher takes at most " +
                std::to_string(GpuMatcher::kMaxDescriptorSize) + " (--backend cpu takes any length)");
  }
  // Both before either's work.
  if (!file_a) check_image_size(images[0], in.a, r.features, r.tiling);
  if (!file_b) check_image_size(images[1], in.b, r.features, r.tiling);
  return in;
}

}  // namespace glsurf::app
