// Pictures for people: the matches of two images (match --draw) and the
// keypoints of one (detect --draw), in the images' colours, drawn with
// anti-aliased lines and circles, and a caption strip under the images that
// gives the counts and says what each colour means (a built-in bitmap font,
// stb_easy_font). Written as PNG (stb_image_write), atomically.
//
// Sizes follow the picture: an input pair (or image) wider than
// max_width is drawn scaled down to that width (area averaging); lines are
// about width / 900 pixels wide (1.2 to 3), endpoint rings 2.5 line widths
// plus one pixel across the radius, text scaled up on wide pictures.
//
// Match picture (image A left, B right, tops aligned, caption below):
//   inliers    a line from A's keypoint to B's, a ring round each endpoint
//              and a dot on it, all in match_colour(i) (i: the match's index
//              in `matches`); the max_drawn of smallest descriptor distance
//   outliers   left out unless `outliers`; then faint red lines
//              (kOutlierColour at kOutlierAlpha), again the max_drawn of
//              smallest distance, under the inliers
//   outline    A's frame mapped into B by the homography, yellow on a dark
//              halo; each side is cut where the mapping sends it to
//              infinity and clipped to B's frame, so it never leaves B
// Keypoint picture: a circle of radius size / 2 (OpenCV's drawKeypoints
// rich flag) with a tick from the centre along the orientation, in
// kDarkBlobColour (Laplacian +1) or kLightBlobColour (-1); the max_drawn of
// largest response, or all when max_drawn is 0.
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

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

// Inlier colours come from a palette of eight colours that are told apart on
// photos and none of which is red, the outliers' colour.
Rgb match_colour(size_t i);
constexpr Rgb kOutlierColour{235, 30, 30};
constexpr float kOutlierAlpha = 0.45f;
constexpr Rgb kOutlineColour{255, 230, 0};
constexpr Rgb kDarkBlobColour{0, 200, 255};   // Laplacian +1: a dark blob on a light background
constexpr Rgb kLightBlobColour{255, 140, 0};  // Laplacian -1: a light blob on a dark background

struct MatchDrawing {
  const RgbImage* a = nullptr;
  const RgbImage* b = nullptr;
  const Features* fa = nullptr;
  const Features* fb = nullptr;
  const std::vector<Match>* matches = nullptr;
  const std::vector<bool>* inliers = nullptr;  // per match; may be empty (all outliers)
  const Homography* h = nullptr;               // may be null
  std::vector<std::string> caption;            // lines above the legend
  bool outliers = false;                       // draw the outliers too, faint
  int max_drawn = 300;                         // of the inliers, and of the outliers
  int max_width = 2000;                        // of the pair, and of its height
};

struct KeypointDrawing {
  const RgbImage* image = nullptr;
  const std::vector<KeyPoint>* keypoints = nullptr;
  std::vector<std::string> caption;
  int max_drawn = 0;  // 0: all
  int max_width = 2000;
};

// The pictures themselves: the image part at the top left (A at x 0, B
// after A's scaled width), the caption strip below.
RgbImage draw_matches(const MatchDrawing& d);
RgbImage draw_keypoints(const KeypointDrawing& d);
// The factor the images are drawn at (1, or less for large ones).
double match_picture_scale(const MatchDrawing& d);
double keypoint_picture_scale(const KeypointDrawing& d);

void write_match_png(const std::string& path, const MatchDrawing& d);
// The same PNG into a stream (`path` names it in errors).
void write_match_png(std::ostream& out, const std::string& path, const MatchDrawing& d);
void write_keypoints_png(const std::string& path, const KeypointDrawing& d);
void write_keypoints_png(std::ostream& out, const std::string& path, const KeypointDrawing& d);

// A PNG of width x height pixels of `channels` bytes (1 grey, 3 RGB, 4 RGBA),
// rows top first, written atomically; glsurf::Error naming the path on failure.
void write_png(const std::string& path, int width, int height, int channels, const std::uint8_t* pixels);
void write_png(std::ostream& out, const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels);

}  // namespace glsurf
