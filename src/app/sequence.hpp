// An image sequence in the Oxford format (img1..imgN, H1to2p..H1toNp), as
// warp writes it and eval scores it.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "glsurf/geometry.hpp"

namespace glsurf::app {

// An Oxford-format sequence: img1..imgN (any image name, is_image_name) and
// H1to2p..H1toNp, by number.
struct Sequence {
  std::map<int, std::string> images;
  std::map<int, Homography> homographies;
  std::map<int, std::string> homography_files;  // as found: H1tokp, H1tokp.xml, ...
};

// Reads the directory and every homography in it; a pair with only one of
// its image and homography, or an image under two names, is an error rather
// than a pair left out.
Sequence read_sequence(const std::filesystem::path& dir);

}  // namespace glsurf::app
