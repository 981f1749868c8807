// Tiled detection: an image too large for the memory budget or for the
// driver's textures is detected in overlapping tiles, with the same keypoints
// and descriptors as in one piece.
//
// The tiles' cores partition the image; a tile is its core with a margin on
// each side (clipped at the image's border) wide enough for everything a
// keypoint in the core reads: the filters of its 3x3x3 block one sample away
// (the interpolation moves it by up to one), its orientation samples and its
// rotated descriptor window. Each tile has its own integral image, whose box
// sums are the whole image's exactly (32-bit integers), and every bound is a
// multiple of twice the coarsest sampling step, so a tile's sample grid and
// cells are the image's. A tile keeps only its core's keypoints (TileCore,
// surf/keypoint.hpp: the interpolation offset against whole samples, so a
// keypoint on a bound belongs to exactly one tile); max_features holds for
// each tile's core and again for the merged set, which therefore holds the
// image's N strongest.
//
// The margin is fixed by the coarsest octave: 416 pixels for the default
// four octaves (its descriptor window reaches 15.4 s from a keypoint of size
// up to 195, s = 1.2 size / 9, rounded up to 16), 60 for one octave.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "glsurf/types.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

// A tile: its pixels in the image, and its core in the tile's pixels.
struct Tile {
  int x = 0, y = 0, width = 0, height = 0;
  TileCore core;
};

// The margin a tile keeps around its core, in pixels (a multiple of
// tile_alignment), and the multiple every tile bound is of.
int tile_margin(const DetectorConfig& config);
int tile_alignment(const DetectorConfig& config);
// The smallest tile side: a margin on each side of one aligned core, and
// room to align the tiles at the border (plan_tiles).
inline int min_tile_side(const DetectorConfig& config) {
  return 2 * tile_margin(config) + 2 * tile_alignment(config);
}

// What decides whether and how an image is tiled.
struct TileLimits {
  // > 0: tiles of at most this side whenever the image is larger (--tile-size).
  int side = 0;
  // The bytes one detection may take (a tile's, or the whole image's), at
  // bytes_per_pixel a pixel plus fixed_bytes; < 0: no limit.
  double budget = -1;
  double bytes_per_pixel = 0, fixed_bytes = 0;
  // Where the budget comes from, for the error: true: --memory-budget;
  // false: the memory available.
  bool budget_given = false;
  // Why the backend refuses a width x height image ("" where it takes it):
  // the driver's texture sizes. Empty function: no limit.
  std::function<std::string(int, int)> size_problem;
};

// 0 when a width x height image is detected in one piece: it fits both the
// budget and the backend, and no smaller side is asked for. Else the side of
// its tiles: the largest that fits. Throws glsurf::Error when not even
// min_tile_side fits, naming why.
int choose_tile_side(int width, int height, const DetectorConfig& config, const TileLimits& limits);

// The tiles of at most side x side pixels that cover a width x height image,
// row by row, all of one size (so that the detector configures once); their
// cores, as equal as alignment allows, partition it.
std::vector<Tile> plan_tiles(int width, int height, int side, const DetectorConfig& config);

// The pixels of `tile` in `image`.
GrayImage crop(const GrayImage& image, const Tile& tile);

// Features of `image` tile by tile: `describe` detects and describes one
// tile's pixels, keeping its core's keypoints (positions in the tile's
// pixels; held to config.max_features as a detection is). The keypoints
// are moved to the image's pixels, merged, sorted strongest first
// (sort_by_strength) and held to config.max_features.
using DescribeTile = std::function<Features(const GrayImage& pixels, const TileCore& core)>;
Features describe_tiled(const GrayImage& image, const std::vector<Tile>& tiles, const DetectorConfig& config,
                        const DescribeTile& describe);

class GpuDetector;
struct DescriptorTextures;

// The side of the tiles a width x height image is detected in under
// `tiling` (0: in one piece), on a GPU `detector` (its textures' limits and
// its rates of memory) or on the CPU reference (null; cpu::bytes_per_pixel).
// The budget is the image's own pixels less, and at most what is available:
// host memory for the CPU reference and a software renderer, the video
// memory a GPU's driver says is free (gl::available_video_memory; none
// where it says nothing). What `detector` holds now counts as available: it
// gives it back as it configures for a new size.
// Throws glsurf::Error when not even the smallest tile fits.
int tile_side(const GpuDetector* detector, const DetectorConfig& config, const Tiling& tiling, int width,
              int height);

// Keypoints and descriptors of `image`, on `detector` or the CPU reference
// (null), in one piece or in tiles as tile_side says. In one piece with
// `resident`, the descriptors stay on the GPU (GpuDetector::detect_and_compute);
// a tiled image's come back to the host whatever `resident` says.
struct TiledDetection {
  Features features;
  int tiles = 1;           // 1: in one piece
  bool truncated = false;  // some point list (the image's, or a tile's) held fewer than were found
};
// `side` >= 0: that tile side (0: in one piece), as tile_side gave it
// before (a caller that keeps descriptors resident decides for both images
// of a pair first: the memory available changes as the first is detected).
TiledDetection detect_and_compute_tiled(GpuDetector* detector, const DetectorConfig& config,
                                        const Tiling& tiling, const GrayImage& image,
                                        DescriptorTextures* resident = nullptr, int side = -1);

}  // namespace glsurf
