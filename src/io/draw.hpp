// Match pictures: the two images side by side (grey, as RGB), inlier and
// outlier match lines in different colours, and the outline of image A mapped
// into B by a homography. Written as PNG (stb_image_write), atomically.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "glsurf/geometry.hpp"
#include "io/image.hpp"
#include "match/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

struct MatchDrawing {
  const GrayImage* a = nullptr;
  const GrayImage* b = nullptr;
  const Features* fa = nullptr;
  const Features* fb = nullptr;
  const std::vector<Match>* matches = nullptr;
  const std::vector<bool>* inliers = nullptr;  // may be empty
  const Homography* h = nullptr;               // may be null
};

void write_match_png(const std::string& path, const MatchDrawing& d);
// The same PNG into a stream (`path` names it in errors).
void write_match_png(std::ostream& out, const std::string& path, const MatchDrawing& d);

// A PNG of width x height pixels of `channels` bytes (1 grey, 3 RGB, 4 RGBA),
// rows top first, written atomically; glsurf::Error naming the path on failure.
void write_png(const std::string& path, int width, int height, int channels, const std::uint8_t* pixels);
void write_png(std::ostream& out, const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels);

}  // namespace glsurf
