// glsurf detect --database (detect_database.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/dataset.hpp"
#include "app/extractor.hpp"
#include "io/image.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::app {

struct DatabaseDetect {
  std::string database, backend;
  FeatureChoice choice;
  LoadOptions load;
  std::vector<std::string> names;  // images and directories as given
  Shard shard;
  bool single_camera = false;  // one camera (id 1) for all images, as COLMAP's single_camera
  bool quiet = false;
  Tiling tiling;
};

// Detects every image of the set (of the shard) not yet in the database and
// stores its features; bad images are reported and skipped. Exit status 1
// when any failed.
int detect_into_database(const DatabaseDetect& run);

}  // namespace glsurf::app
