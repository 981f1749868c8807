// glsurf match's request and inputs (match.cpp, match_inputs.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/extractor.hpp"
#include "io/exchange.hpp"
#include "io/image.hpp"
#include "match/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::app {

// What the command line asks for.
struct Request {
  std::string backend;
  FeatureChoice features;
  Tiling tiling;
  LoadOptions load;
  MatchConfig matcher;
  std::vector<std::string> image_options;  // the detector's and loader's options given
  std::string geometry = "h";              // h, f or auto: the model that verifies the matches
  std::string matches_path, homography_path, fundamental_path, draw_path, truth_path;
  std::string matches_format = "txt";               // of -o: txt, opencv or colmap
  StorageKind matches_storage = StorageKind::None;  // opencv: YAML or XML
  std::string image_names[2];                       // colmap: A's and B's names in the match list
  bool draw_outliers = false;                       // --draw-outliers
  int draw_max = 300;                               // --draw-max
  std::vector<std::string> images;                  // A and B, "-" as /dev/stdin
};

// The two inputs: each an image, or a feature file with descriptors (as
// detect or describe wrote it), matched as it is.
struct Inputs {
  bool file_a = false, file_b = false;
  GrayImage a, b;               // empty for a feature file
  RgbImage colour_a, colour_b;  // with --draw: the images' colours
  Features fa, fb;
};

// Both inputs read, and checked to fit together and the detector, before
// either's work.
Inputs read_inputs(const Request& request);

}  // namespace glsurf::app
