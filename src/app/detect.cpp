// glsurf detect — keypoints of one image or a batch, on the GPU or the CPU
// reference. Bad files are reported and skipped; the exit status says whether
// any failed.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <new>

#include "app/cli.hpp"
#include "app/dataset.hpp"
#include "app/detect_database.hpp"
#include "app/extractor.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/draw.hpp"
#include "io/features.hpp"
#include "io/image.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

// Checks every feature file of a batch against every input, and against
// the others, before any is written; then makes the directory OUT.
template <typename TargetOf>
void prepare_batch(const std::vector<std::string>& files, const TargetOf& target_of, const std::string& out,
                   MadeDirectories& made) {
  std::map<std::string, std::string> target_inputs;  // feature file -> the input it is for
  for (const std::string& file : files) {
    const std::string target = target_of(file);
    check_not_an_input("-o", target, files);
    if (const auto [it, added] = target_inputs.emplace(target, file); !added) {
      std::error_code ec;
      if (fs::equivalent(it->second, file, ec)) throw UsageError(file + " is given twice");
      throw UsageError(it->second + " and " + file + " would both write " + target +
                       "; rename one or detect them in separate runs");
    }
  }
  if (const int error = made.make(out); error != 0) {
    throw Error(out + ": cannot create output directory (" + std::strerror(error) + ")");
  }
  std::error_code ec;
  if (!fs::is_directory(out, ec)) throw Error(out + ": cannot create output directory (not a directory)");
}

int detect(Args& args) {
  const std::string backend = backend_option(args);
  const FeatureChoice choice = feature_options(args);
  const Tiling tiling = tiling_options(args);
  const std::string out = args.option("-o");
  const std::string format_given = format_option(args);
  const LoadOptions load = load_options(args);
  const std::string database = args.option("--database");
  const std::string shard = args.option("--shard");
  const bool quiet = args.flag("--quiet");
  const bool single_camera = args.flag("--single-camera");
  const std::string draw = args.option("--draw");
  const size_t before_draw_max = args.taken().size();
  const int draw_max = args.option_int("--draw-max");
  const bool draw_max_given = args.taken().size() > before_draw_max;
  const std::vector<std::string> names = args.positionals();
  args.finish();
  check_feature_options(choice);
  if (names.empty()) throw UsageError("detect needs at least one image or directory");
  if (draw.empty() && draw_max_given) throw UsageError("--draw-max needs --draw");
  if (!draw.empty()) check_png_name("--draw", draw);
  if (!database.empty()) {
    if (!out.empty()) throw UsageError("-o and --database: give one of them");
    if (!format_given.empty()) throw UsageError("--format applies to feature files, not to --database");
    if (!draw.empty()) throw UsageError("--draw draws one image, not a --database");
    DatabaseDetect run;
    run.database = database;
    run.backend = backend;
    run.choice = choice;
    run.tiling = tiling;
    run.load = load;
    run.names = names;
    if (!shard.empty()) run.shard = parse_shard(shard);
    run.single_camera = single_camera;
    run.quiet = quiet;
    return detect_into_database(run);
  }
  if (single_camera) throw UsageError("--single-camera needs --database");
  if (!shard.empty() || quiet)
    throw UsageError(std::string(shard.empty() ? "--quiet" : "--shard") + " needs --database");

  std::vector<std::string> empty_directories;  // named, as docs/cli.md says, errors
  const std::vector<std::string> files = expand_image_arguments(names, nullptr, &empty_directories);
  if (files.empty())
    throw Error("no images to detect in " + names.front() + (names.size() > 1 ? " ..." : ""));
  // A directory among the inputs makes a batch whatever its count, and an
  // existing directory as OUT takes NAME.txt|.bin also for one image (a glob
  // that matched one file).
  const bool directory_input = std::any_of(names.begin(), names.end(), [](const std::string& name) {
    std::error_code ec;
    return fs::is_directory(name, ec);
  });
  const bool batch = files.size() != 1 || directory_input || (out != "-" && fs::is_directory(out));
  if (batch && (out.empty() || out == "-" || standard_stream_of(out) != 0)) {
    throw UsageError(files.size() > 1 ? "several images need -o DIRECTORY for their feature files"
                                      : "a directory as input needs -o DIRECTORY for the feature files");
  }
  // A name ending in .bin (.yml, .key) picks the format of one image's file,
  // not of a batch's directory.
  const FeatureWriter writer = feature_writer(feature_format(format_given, batch ? "" : out), out, batch);
  if (!batch && !out.empty()) {
    check_not_an_input("-o", out, files);
    check_writable(out);  // before the work, not after it
  }
  if (!draw.empty()) {
    if (batch) throw UsageError("--draw draws one image: give one image, not a batch");
    check_not_an_input("--draw", draw, files);
    check_writable(draw);
    if (!out.empty() && output_identity(out) == output_identity(draw) && !output_identity(out).empty())
      throw UsageError("--draw " + draw + " names the same file as -o");
  }
  // The feature file of each input: OUT itself, or NAME.txt|.bin|... in OUT for a batch.
  const auto target_of = [&](const std::string& file) { return batch ? writer.batch_file(out, file) : out; };
  // The directories this run makes for OUT, removed again (when empty) if
  // it writes no feature file, however it ends.
  MadeDirectories made;
  if (batch) prepare_batch(files, target_of, out, made);
  // One run at a time writes into a batch's directory (no mixture of two
  // runs' files); held until this one ends.
  std::unique_ptr<OutputLock> lock = batch ? std::make_unique<OutputLock>(out) : nullptr;

  for (const std::string& name : empty_directories) {
    std::fprintf(stderr, "glsurf: error: %s: no images in this directory\n", one_line(name).c_str());
  }

  std::unique_ptr<gl::Context> context;
  if (backend == "gl") context = std::make_unique<gl::Context>(headless_or_hint());
  Extractor extractor(choice, tiling, context.get());

  int failures = 0;
  // After a failure inside the detector (out of memory, GPU or host), it is
  // made anew: it may be left half configured for the image it refused.
  bool detecting = false;
  const auto after_failure = [&] {
    ++failures;
    if (detecting) extractor.renew();
  };
  // The next image is decoded while the detector works on this one.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  Prefetch prefetch(files, load, order);
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    detecting = false;
    try {
      RgbImage colour;  // for --draw, of one image
      const GrayImage image = draw.empty() ? prefetch.take(i) : load_gray(file, load, &colour);
      extractor.check_image(file, image);  // refused before the detector sees it
      const auto t0 = std::chrono::steady_clock::now();
      detecting = true;
      int tiles = 1;
      const Features features = extractor.describe(image, file, nullptr, &tiles);
      detecting = false;
      const std::vector<KeyPoint>& keypoints = features.keypoints;
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!batch && out.empty()) {
        errno = 0;
        writer.write(std::cout, features);
        std::cout.flush();
        if (!std::cout) throw Error(write_failed("standard output", errno));
      } else {
        const std::string target = target_of(file);
        write_file_atomically(target, writer.binary, [&](std::ostream& o) { writer.write(o, features); });
        made.keep();
      }
      if (!draw.empty()) {
        KeypointDrawing d;
        d.image = &colour, d.keypoints = &keypoints, d.max_drawn = draw_max;
        d.caption = {fs::path(file).filename().string() + ": " + counted(keypoints.size(), "keypoint") +
                     ", " + std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
                     std::to_string(std::lround(ms)) + " ms (" + backend + ")"};
        write_keypoints_png(draw, d);
      }
      std::fprintf(stderr, "%s: %s, %dx%d%s, %.1f ms (%s)\n", one_line(file).c_str(),
                   counted(keypoints.size(), "keypoint").c_str(), image.width, image.height,
                   tiles > 1 ? (" in " + std::to_string(tiles) + " tiles").c_str() : "", ms, backend.c_str());
    } catch (const Error& e) {
      const std::string what = e.what();
      std::fprintf(stderr, "glsurf: error: %s\n",
                   one_line(what.rfind(file, 0) == 0 ? what : what + " (" + file + ")").c_str());
      after_failure();
    } catch (const std::bad_alloc&) {  // an image too large for this machine's memory
      std::fprintf(stderr, "glsurf: error: %s: out of memory\n", one_line(file).c_str());
      after_failure();
    }
  }
  if (files.size() > 1 || !empty_directories.empty()) {
    const size_t empty = empty_directories.size();
    std::string summary = counted(files.size(), "image") + ", " + std::to_string(failures) + " failed";
    if (empty > 0)
      summary +=
          "; " + std::to_string(empty) + (empty == 1 ? " directory" : " directories") + " without images";
    std::fprintf(stderr, "%s\n", summary.c_str());
  }
  return failures == 0 && empty_directories.empty() ? 0 : 1;
}

OptionTable detect_options() {
  OptionTable table = {
      text("-o", "OUT", "",
           "one image: its feature file (without --format, the name picks it: bin for .bin, opencv for "
           ".yml .yaml .xml, lowe for .key); several images, or OUT an existing directory: a file per image "
           "in OUT, NAME.txt|.bin|.yml|.key, or IMAGE_NAME.txt for colmap (box.png.txt)",
           "standard output"),
      text("--database", "DB", "",
           "a COLMAP 3.8 database (made when missing): cameras, images, keypoints and descriptors for "
           "colmap, glsurf's features beside them; images already in it are skipped",
           "none"),
      shard_option("images"),
      flag("--single-camera",
           "with --database: one camera for all images (COLMAP's single_camera; one image size), from the "
           "first image stored"),
      flag("--quiet", "with --database: no progress, only errors"),
      shared_option("--backend"),
      shared_option("--format"),
      text("--draw", "FILE.png", "",
           "one image: a picture of it in colour with its keypoints, circles of their scale with an "
           "orientation tick, coloured by the Laplacian's sign, and a legend (PNG)",
           "none"),
      integer("--draw-max", "N", 1000, 0, 10000000, "with --draw: the N strongest keypoints drawn (0: all)")};
  for (const Option& row : detector_table()) table.push_back(row);
  for (const Option& row : sift_table()) table.push_back(row);
  for (const Option& row : tiling_table()) table.push_back(row);
  table.push_back(shared_option("--ignore-orientation"));
  return table;
}

}  // namespace

Command detect_command() {
  return {"detect",
          "IMAGE|DIR...",
          "SURF (or SIFT) keypoints and descriptors of each image",
          "A directory gives its images in name order. Images: png, jpg, bmp, tga, binary pgm/ppm, also "
          "piped (- or /dev/stdin). Angles are degrees counter-clockwise as the image is shown (y down), as "
          "OpenCV's SURF gives them. A file that cannot be read is reported and the others are detected "
          "(exit status 1).",
          detect_options,
          detect,
          "detect assets/box.png -o box.txt --threshold 400",
          {}};
}

}  // namespace glsurf::app
