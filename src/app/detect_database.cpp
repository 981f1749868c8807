// glsurf detect --database: the features of a set of images into a COLMAP
// project database, one transaction per image, so that a run killed at any
// moment leaves a consistent database and a rerun does only what is missing.
#include "app/detect_database.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>

#include "app/cli.hpp"
#include "app/dataset.hpp"
#include "database/colmap.hpp"
#include "io/exif.hpp"
#include "io/output.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

namespace fs = std::filesystem;

namespace {

// What the features depend on, stored with them: a database holds the
// features of one set of options. Begins with the features' type ("surf",
// "sift"), which Database::features reads.
std::string detector_signature(const FeatureChoice& choice, const std::string& backend, bool single_camera) {
  const std::string signature = feature_signature(choice);
  const size_t space = signature.find(' ');
  return signature.substr(0, space) + " backend=" + backend + signature.substr(space) +
         " cameras=" + (single_camera ? "single" : "per-image");
}

// The focal length in pixels that the file's EXIF data gives (0: none), for
// the camera's prior, as COLMAP's feature extractor reads it.
double exif_focal_pixels(const std::string& path, const GrayImage& image) {
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> head(256 * 1024);  // the APP segments come first; EXIF's is at most 64 KiB
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return jpeg_exif_focal_pixels(head.data(), head.size(), image.width, image.height);
}

}  // namespace

int detect_into_database(const DatabaseDetect& run) {
  std::vector<std::string> empty_directories;
  const std::vector<std::string> files = expand_image_arguments(run.names, nullptr, &empty_directories);
  if (files.empty())
    throw Error("no images to detect in " + run.names.front() + (run.names.size() > 1 ? " ..." : ""));
  for (const std::string& file : files) {
    if (file == "/dev/stdin") throw UsageError("--database needs image files, not a piped image");
  }
  const ImageSet set = image_set(run.names, files);
  for (size_t i = 1; i < set.files.size(); ++i) {
    if (set.files[i].first == set.files[i - 1].first)
      throw UsageError(set.files[i].second + " is given twice");
  }

  auto db = std::make_unique<colmap::Database>(run.database, colmap::Database::Access::Write);
  const bool created = db->created();
  const OutputLock lock(run.database);  // one writer at a time
  // The database's images keep their ids; those new to it take their place
  // in this list, or after the largest id when another image holds that.
  db->require_setting("detector", detector_signature(run.choice, run.backend, run.single_camera), "features");
  db->set_setting("image_root", set.root);

  std::vector<size_t> todo;  // indices into set.files
  size_t stored_before = 0;
  for (size_t i = 0; i < set.files.size(); ++i) {
    if (!run.shard.takes(i)) continue;
    if (db->image_id(set.files[i].first))
      ++stored_before;
    else
      todo.push_back(i);
  }

  std::unique_ptr<gl::Context> context;
  std::unique_ptr<Extractor> extractor;
  if (!todo.empty()) {
    if (run.backend == "gl") context = std::make_unique<gl::Context>(headless_or_hint());
    extractor = std::make_unique<Extractor>(run.choice, run.tiling, context.get());
  }

  Progress progress("images", todo.size(), run.quiet);
  for (const std::string& name : empty_directories)
    progress.note("glsurf: error: " + name + ": no images in this directory");
  int failures = 0;
  size_t stored = 0, keypoints = 0;
  // The next image is decoded while the detector works on this one.
  std::vector<std::string> paths;
  for (const auto& file : set.files) paths.push_back(file.second);
  Prefetch prefetch(paths, run.load, todo);
  for (const size_t i : todo) {
    const auto& [name, path] = set.files[i];
    bool detecting = false;
    try {
      const GrayImage image = prefetch.take(i);
      extractor->check_image(path, image);
      detecting = true;
      const Features features = extractor->describe(image, path);
      detecting = false;
      colmap::ImageId id = static_cast<colmap::ImageId>(i) + 1;
      if (db->has_image_id(id)) id = db->images(false).back().id + 1;
      db->add_image(id, name, run.single_camera ? 1 : id,
                    colmap::default_camera(image.width, image.height, exif_focal_pixels(path, image)),
                    features);
      ++stored;
      keypoints += features.keypoints.size();
    } catch (const Error& e) {
      const std::string what = e.what();
      progress.note("glsurf: error: " + (what.rfind(path, 0) == 0 ? what : what + " (" + path + ")"));
      ++failures;
      if (detecting) extractor->renew();  // it may be left half configured for the image it refused
    } catch (const std::bad_alloc&) {
      progress.note("glsurf: error: " + path + ": out of memory");
      ++failures;
      if (detecting) extractor->renew();
    }
    progress.step();
  }
  progress.finish();

  const size_t in_database = db->images(true).size();
  db.reset();
  if (created && in_database == 0) fs::remove(run.database);  // made by this run, and nothing in it
  if (!run.quiet || failures > 0) {
    std::string summary = counted(set.files.size(), "image");
    if (run.shard.n > 1)
      summary += ", shard " + run.shard.name() + ": " + counted(todo.size() + stored_before, "image");
    summary += ": " + std::to_string(stored) + " stored (" + counted(keypoints, "keypoint") + ")";
    if (stored_before > 0) summary += ", " + std::to_string(stored_before) + " already in the database";
    summary += ", " + std::to_string(failures) + " failed; " + run.database + " holds " +
               counted(in_database, "image");
    if (created && in_database == 0) summary += " (removed)";
    std::fprintf(stderr, "%s\n", one_line(summary).c_str());
  }
  return failures == 0 && empty_directories.empty() ? 0 : 1;
}

}  // namespace glsurf::app
