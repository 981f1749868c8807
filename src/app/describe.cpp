// glsurf describe — orientation and descriptors of given keypoints (a
// feature file, as detect writes it, or from another detector) in one image,
// on the GPU or the CPU reference: OpenCV's compute() beside detect's
// detectAndCompute().
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/cli.hpp"
#include "cpu/descriptor.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace {

int describe(Args& args) {
  const std::string backend = backend_option(args);
  DetectorConfig config;
  config.upright = args.flag("--upright");
  config.extended = args.flag("--extended");
  const Angles angles = args.flag("--keep-angles") ? Angles::Keep : Angles::Compute;
  if (const std::string why = cpu::angles_problem(config, angles); !why.empty()) {
    throw UsageError("--keep-angles and --upright exclude each other: " + why);
  }
  const std::string out = args.option("-o");
  const LoadOptions load = load_options(args);
  const FeatureWriter writer = feature_writer(feature_format(format_option(args), out), out, false);
  const std::vector<std::string> names = args.positionals();
  args.finish();
  if (names.size() != 2) throw UsageError("describe needs an image and a feature file");
  const std::string& image_name = names[0];
  const std::string& keypoints_name = names[1];
  if (image_name == "-" && keypoints_name == "-")
    throw UsageError("only one of the image and the feature file can be piped in (-)");
  if (!out.empty()) {
    check_not_an_input("-o", out, {input_path(image_name), input_path(keypoints_name)});
    check_writable(out);  // before the work, not after it
  }

  const GrayImage image = load_gray(input_path(image_name), load);
  FeatureFormat keypoints_format = FeatureFormat::Txt;
  const std::string keypoints_path = input_path(keypoints_name);
  Features read = read_features_file(keypoints_path, &keypoints_format);
  if (read.type != FeatureType::Surf) {
    throw Error(keypoints_path +
                ": SIFT keypoints; describe computes SURF descriptors (detect --features sift "
                "gives SIFT's)");
  }
  std::vector<KeyPoint> keypoints = std::move(read.keypoints);
  // A keypoint the image cannot hold is named where it is in its file, as
  // the reader names a value it cannot read.
  std::string why;
  if (const long i = cpu::first_keypoint_problem(keypoints, image.width, image.height, why, angles); i >= 0) {
    throw Error(keypoints_path + ": " +
                keypoint_location(keypoints_format, static_cast<size_t>(i), keypoints.size()) + ": " + why);
  }
  std::unique_ptr<gl::Context> context;
  std::unique_ptr<GpuDetector> detector;
  if (backend == "gl") {
    context = std::make_unique<gl::Context>(headless_or_hint());
    detector = std::make_unique<GpuDetector>(*context, config);
    // Only the driver's limits: describing needs no detection stages, so it
    // takes images smaller than the smallest filter, as the CPU does.
    if (const std::string why = detector->compute_size_problem(image.width, image.height); !why.empty()) {
      throw Error(input_path(image_name) + ": " + why);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  Features features;
  try {
    features = detector ? detector->compute(image, std::move(keypoints), angles)
                        : cpu::compute(image, std::move(keypoints), config, angles);
  } catch (const Error& e) {
    throw Error(input_path(image_name) + ": " + e.what());  // the keypoints were checked above
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (out.empty()) {
    errno = 0;
    writer.write(std::cout, features);
    std::cout.flush();
    if (!std::cout) throw Error(write_failed("standard output", errno));
  } else {
    write_file_atomically(out, writer.binary, [&](std::ostream& o) { writer.write(o, features); });
  }
  // As the commands that load it name it: a piped image is /dev/stdin.
  std::fprintf(stderr, "%s: %s described, %dx%d, %.1f ms (%s)\n", one_line(input_path(image_name)).c_str(),
               counted(features.keypoints.size(), "keypoint").c_str(), image.width, image.height, ms,
               backend.c_str());
  return 0;
}

OptionTable describe_options() {
  return {text("-o", "OUT", "", "the feature file (without --format, the name picks it, as for detect)",
               "standard output"),
          shared_option("--backend"),
          shared_option("--format"),
          shared_option("--upright"),
          shared_option("--extended"),
          flag("--keep-angles",
               "describe at the file's angles (0 to 360; e.g. detect's --second-orientation entries) "
               "instead of computing them"),
          shared_option("--ignore-orientation")};
}

}  // namespace

Command describe_command() {
  return {"describe",
          "IMAGE FEATURES",
          "orientation and descriptors of a feature file's keypoints in IMAGE",
          "Every field of a keypoint but the angle is kept; angles are computed anew unless --keep-angles. "
          "Either input may be - for standard input. OpenCV's compute() beside detect's "
          "detectAndCompute().",
          describe_options,
          describe,
          "describe assets/box.png box.txt -o box_described.txt",
          {}};
}

}  // namespace glsurf::app
