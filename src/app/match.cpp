// glsurf match — the main job: detect, describe and match two images, verify
// with a homography, and report.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "app/cli.hpp"
#include "cpu/matcher.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "glsurf/geometry.hpp"
#include "io/draw.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "match/matcher.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace {
constexpr float kMaxDescriptorValue = 1e12f;
}  // namespace

int match(Args args) {
  const std::string backend = backend_option(args);
  // The detector's and the loader's options given, refused below when both
  // inputs are feature files (which are matched as they are).
  std::vector<std::string> image_options = args.taken();
  const DetectorConfig detector_config = detector_options(args);
  const LoadOptions load = load_options(args);
  image_options.assign(args.taken().begin() + static_cast<std::ptrdiff_t>(image_options.size()),
                       args.taken().end());
  const MatchConfig match_config = match_options(args);
  const std::string matches_path = args.option("-o", "");
  const std::string homography_path = args.option("--homography", "");
  const std::string draw_path = args.option("--draw", "");
  if (!draw_path.empty()) check_png_name("--draw", draw_path);
  std::string truth_path = args.option("--truth", "");
  std::vector<std::string> images = args.positionals();
  args.finish();
  if (images.empty()) {  // the bundled pair, with its ground truth
    images = {asset_dir() + "/graf1.png", asset_dir() + "/graf3.png"};
    if (truth_path.empty()) truth_path = asset_dir() + "/H1to3p.xml";
  }
  if (images.size() != 2) throw UsageError("match needs two images (or none, for the bundled pair)");
  for (std::string& image : images) image = input_path(image);
  if (images[0] == "/dev/stdin" && images[1] == "/dev/stdin") {
    throw UsageError("only one of the two images can be piped in (-)");
  }
  std::vector<std::pair<std::string, std::filesystem::path>> named;  // option, the file it writes
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"-o", matches_path},
                                     {"--homography", homography_path},
                                     {"--draw", draw_path}}) {
    if (path.empty()) continue;
    check_not_an_input(option, path, {images[0], images[1], truth_path});
    check_writable(path);  // before the work, not after it
    const std::filesystem::path file = output_identity(path);
    for (const auto& [other, other_file] : named) {
      if (!file.empty() && file == other_file) {
        throw UsageError(std::string(option) + " " + path + " names the same file as " + other);
      }
    }
    named.emplace_back(option, file);
  }

  // Each input is an image, or a feature file with descriptors (as detect or
  // describe wrote it), matched as it is: its keypoints are not found again.
  const bool file_a = is_feature_file(images[0]), file_b = is_feature_file(images[1]);
  if ((file_a || file_b) && !draw_path.empty())
    throw UsageError("--draw needs two images, not feature files");
  if (file_a && file_b && !image_options.empty()) {
    throw UsageError(image_options.front() +
                     " applies to images; both inputs are feature files, matched as they are");
  }
  GrayImage a, b;  // empty for a feature file
  Features fa, fb;
  const auto read_described = [](const std::string& path) {
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
  };
  // A piped input is read as an image (to look for a feature file would
  // consume it): say so where it is no image format at all.
  const auto load_image = [&](const std::string& path) {
    try {
      return load_gray(path, load);
    } catch (const Error& e) {
      std::error_code ec;
      const bool unknown = std::string(e.what()).find("not a supported image") != std::string::npos;
      if (path != "/dev/stdin" || std::filesystem::is_regular_file(path, ec) || !unknown) throw;
      throw Error(std::string(e.what()) + "; a piped input is read as an image: give a feature file by name");
    }
  };
  if (file_a)
    fa = read_described(images[0]);
  else
    a = load_image(images[0]);
  if (file_b)
    fb = read_described(images[1]);
  else
    b = load_image(images[1]);
  // Descriptors of one length on both sides: a file's are as they are, an
  // image's 64 values, or 128 with --extended.
  const int da = file_a ? fa.descriptor_size : descriptor_size(detector_config);
  const int db = file_b ? fb.descriptor_size : descriptor_size(detector_config);
  if (da != db) {
    // Where one side is an image, a file of the other standard length needs
    // --extended given or left out.
    const int file_length = file_a ? da : db;
    const std::string hint = file_a == file_b                                  ? ""
                             : file_length == 128 && !detector_config.extended ? " (add --extended)"
                             : file_length == 64 && detector_config.extended   ? " (leave out --extended)"
                                                                               : "";
    throw Error(images[0] + " gives " + std::to_string(da) + "-value descriptors, " + images[1] + " " +
                std::to_string(db) + hint);
  }
  if (backend == "gl" && da > GpuMatcher::kMaxDescriptorSize) {
    throw Error(images[file_a ? 0 : 1] + ": " + std::to_string(da) +
                "-value descriptors: the GPU matcher takes at most " +
                std::to_string(GpuMatcher::kMaxDescriptorSize) + " (--backend cpu takes any length)");
  }
  if (!file_a) check_image_size(images[0], a, detector_config);  // both before either's work
  if (!file_b) check_image_size(images[1], b, detector_config);
  const Homography* truth = nullptr;
  Homography truth_h{};
  if (!truth_path.empty()) {
    truth_h = read_homography_file(truth_path);
    truth = &truth_h;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Match> matches;
  if (backend == "gl") {
    std::unique_ptr<gl::Context> context;
    context = std::make_unique<gl::Context>(headless_or_hint());
    std::unique_ptr<GpuDetector> detector;  // for the images among the inputs
    if (!file_a || !file_b) {
      detector = std::make_unique<GpuDetector>(*context, detector_config);
      // The textures' limits too, both before either's work.
      if (!file_a) check_image_size(images[0], a, detector_config, detector.get());
      if (!file_b) check_image_size(images[1], b, detector_config, detector.get());
    }
    GpuMatcher matcher(*context, match_config);
    if (!file_a && !file_b) {
      DescriptorTextures ra, rb;  // the descriptors stay on the GPU for matching
      fa = describe_file(detector.get(), detector_config, a, images[0], &ra);
      fb = describe_file(detector.get(), detector_config, b, images[1], &rb);
      matches = matcher.match(ra, rb);
    } else {
      if (!file_a) fa = describe_file(detector.get(), detector_config, a, images[0]);
      if (!file_b) fb = describe_file(detector.get(), detector_config, b, images[1]);
      matches = matcher.match(fa, fb);
    }
  } else {
    if (!file_a) fa = describe_file(nullptr, detector_config, a, images[0]);
    if (!file_b) fb = describe_file(nullptr, detector_config, b, images[1]);
    matches = cpu::match(fa, fb, match_config);
  }
  std::vector<PointPair> pairs;
  for (const Match& m : matches) {
    const KeyPoint &ka = fa.keypoints[static_cast<size_t>(m.query)],
                   &kb = fb.keypoints[static_cast<size_t>(m.train)];
    pairs.push_back({ka.x, ka.y, kb.x, kb.y});
  }
  const HomographyResult h = ransac_homography(pairs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  if (!homography_path.empty() && !h.found) {  // before any file is written
    std::string unwritten = homography_path;
    for (const std::string& path : {matches_path, draw_path}) {
      if (!path.empty()) unwritten += ", " + path;
    }
    const bool others = !matches_path.empty() || !draw_path.empty();
    throw Error("no homography found (" + std::to_string(matches.size()) + " matches); nothing written (" +
                unwritten + ")" +
                (others ? ": without --homography the others are written all the same" : ""));
  }
  // All the outputs or none: a failing --draw must not leave -o behind.
  OutputFiles outputs;
  if (!matches_path.empty()) {
    outputs.add(matches_path, false, [&](std::ostream& out) {
      char line[96];
      for (size_t i = 0; i < matches.size(); ++i) {
        std::snprintf(line, sizeof line, "%d %d %.7g %d\n", matches[i].query, matches[i].train,
                      matches[i].distance, h.found && h.inliers[i] ? 1 : 0);
        out << line;
      }
    });
  }
  if (!homography_path.empty()) {
    outputs.add(homography_path, false, [&](std::ostream& out) { write_homography(out, h.h); });
  }
  if (!draw_path.empty()) {
    outputs.add(draw_path, true, [&](std::ostream& out) {
      write_match_png(out, draw_path, {&a, &b, &fa, &fb, &matches, &h.inliers, h.found ? &h.h : nullptr});
    });
  }
  char verdict[96];
  const int needed = RansacConfig{}.min_inliers;
  if (h.found) {
    std::snprintf(verdict, sizeof verdict, "%d inliers", h.inlier_count);
  } else if (matches.size() < 4) {  // no fit tried
    std::snprintf(verdict, sizeof verdict, "no homography (%d inliers needed)", needed);
  } else {
    std::snprintf(verdict, sizeof verdict, "no homography (best fit %d inliers, %d needed)", h.inlier_count,
                  needed);
  }
  // The summary stays out of an output written to standard output.
  bool output_on_stdout = false;
  for (const std::string& path : {matches_path, homography_path, draw_path}) {
    output_on_stdout = output_on_stdout || (!path.empty() && standard_stream_of(path) == 1);
  }
  FILE* const summary = output_on_stdout ? stderr : stdout;
  std::fprintf(summary, "%s: %s, %s: %s, %s, %s, %.0f ms (%s)\n", one_line(images[0]).c_str(),
               counted(fa.keypoints.size(), "feature").c_str(), one_line(images[1]).c_str(),
               counted(fb.keypoints.size(), "feature").c_str(),
               counted(matches.size(), "match", "matches").c_str(), verdict, ms, backend.c_str());
  if (truth) {
    int correct = 0;
    for (const PointPair& p : pairs) correct += reprojection_error(*truth, p) < 3.0;
    std::string corner =
        file_a ? "n/a (A is a feature file: no image size)" : "n/a";  // or no homography found
    if (h.found && !file_a) {
      const double e = corner_error(h.h, *truth, a.width, a.height);
      corner = std::isnan(e) ? "n/a (the truth sends part of A to infinity)" : std::to_string(e) + " px";
    }
    std::fprintf(summary, "against %s: %d correct matches (< 3 px), homography corner error %s\n",
                 truth_path.c_str(), correct, corner.c_str());
  }
  // The report comes before the outputs are committed: one that cannot be
  // written (a full disk, a closed descriptor) fails the run, and a failed
  // run leaves no output behind.
  if (summary == stdout) flush_standard_output();
  outputs.commit();
  return 0;
}

}  // namespace glsurf::app
