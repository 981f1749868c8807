// Keypoints, detector parameters and the scale space shared by the GPU
// detector and the CPU reference.
//
// Scale space (Bay et al. 2008, OpenSURF): octave o has n_octave_layers + 2
// layers of box filters of side
//
//     L(o, l) = 3 * (2^(o+1) * (l + 1) + 1)       l = 0 .. n_octave_layers + 1
//
// i.e. 9-15-21-27, 15-27-39-51, 27-51-75-99, 51-99-147-195 for the default 4
// octaves of 2 + 2 layers, sampled every t * 2^o pixels, t the first octave's
// step (first_step, 1 by default): sample (i, j) of octave o is the filter
// centred on pixel (x, y) = (j, i) * t * 2^o. (OpenCV's SURF uses the sizes
// (9 + 6l) * 2^o instead; octave 0 is the same.) A filter of side L
// approximates Gaussian second derivatives of scale sigma = 1.2 L / 9.
//
// Keypoint fields follow OpenCV's KeyPoint as its SURF fills them:
//   x, y       position in pixels; (0, 0) is the centre of the top-left pixel,
//              x right, y down
//   size       the interpolated filter side L in pixels (not rounded);
//              sigma = 1.2 * size / 9 = 0.1333 * size
//   angle      orientation in degrees in [0, 360), counter-clockwise as seen
//              on screen (OpenCV's convention); 0 for upright descriptors,
//              -1 when only detected
//   response   det(H) at the detected sample (see below), before interpolation
//   octave     o
//   laplacian  sign of the trace Dxx + Dyy: +1 for a dark blob on a light
//              background, -1 for a light blob on dark (OpenCV's class_id)
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "glsurf/detector.hpp"
#include "glsurf/types.hpp"

namespace glsurf {

// Why `image` is not a whole image (a negative side, or a pixel buffer that
// is not width x height long), or "" when it is. The detectors check it
// first: an image put together by hand with too few pixels would otherwise
// be read past its end, or, with none, not uploaded at all.
inline std::string image_layout_problem(const GrayImage& image) {
  const long long expected = static_cast<long long>(image.width) * image.height;
  if (image.width < 0 || image.height < 0 || static_cast<long long>(image.pixels.size()) != expected) {
    return "image of " + std::to_string(image.width) + "x" + std::to_string(image.height) + " has " +
           std::to_string(image.pixels.size()) + " pixel values" +
           (image.width < 0 || image.height < 0 ? "" : " instead of " + std::to_string(expected));
  }
  return "";
}

inline int descriptor_size(const DetectorConfig& config) { return config.extended ? 128 : 64; }

// What describing given keypoints (cpu::compute, GpuDetector::compute) does
// with their angles: compute each one's orientation, as OpenCV's SURF does
// (0 when upright), or keep the angle it has (degrees ccw, in [0, 360]), as
// OpenCV's SIFT does: for keypoints whose orientation comes from elsewhere,
// or a feature file with second orientations described again.
enum class Angles { Compute, Keep };

// Whether both detectors take `config`: n_octaves 1 to 16, n_octave_layers
// 1 to 64 and first_step 1 to 64 (so that filter sides and sampling steps
// stay far inside int; an octave of 16 already needs filters 393,219 pixels
// wide), max_features and hessian_threshold not negative, second_orientation
// in [0, 1] and 0 when upright.
inline bool valid_config(const DetectorConfig& config) {
  return config.n_octaves >= 1 && config.n_octaves <= 16 && config.n_octave_layers >= 1 &&
         config.n_octave_layers <= 64 && config.first_step >= 1 && config.first_step <= 64 &&
         config.max_features >= 0 && config.hessian_threshold >= 0 && config.second_orientation >= 0 &&
         config.second_orientation <= 1 && !(config.upright && config.second_orientation > 0);
}

inline int filter_size(int octave, int layer) { return 3 * ((2 << octave) * (layer + 1) + 1); }
inline int sample_step(int octave, int first_step) { return first_step << octave; }

// The smallest image side the detector accepts: some sample's 3x3
// neighbourhood, samples t = first_step apart, must fit with the largest
// filter of octave 0's first block (side 21, half-width 10) centred on each:
// the middle sample at p t with (p - 1) t >= 10 and (p + 1) t + 10 <= side - 1.
// 23 at t = 1, 25 at t = 2.
inline int min_image_side(const DetectorConfig& config) {
  const int t = config.first_step, half = filter_size(0, 2) / 2;
  return (2 + (half + t - 1) / t) * t + half + 1;
}

// The part of an image whose keypoints a detection keeps: those whose
// interpolated position lies in [x0, x1) x [y0, y1), pixels. A tile's core
// (surf/tiles.hpp): every bound a multiple of the coarsest octave's sampling
// step, so that both detectors compare the interpolation offset, in samples,
// with a whole number of samples, and a keypoint near two tiles' common
// bound falls in exactly one of them whatever the rounding of its position.
// The default keeps the whole image.
struct TileCore {
  static constexpr int kUnbounded = 1 << 30;  // a multiple of every sampling step
  int x0 = -kUnbounded, y0 = -kUnbounded, x1 = kUnbounded, y1 = kUnbounded;
  bool whole() const {
    return x0 == -kUnbounded && y0 == -kUnbounded && x1 == kUnbounded && y1 == kUnbounded;
  }
};

// Whether a keypoint at sample (j, i) of a grid `step` pixels apart, moved
// by `offset` samples (|offset| <= 1), lies in `core` (TileCore): the same
// test on the CPU (double offsets) and in shaders/extrema/interpolate.frag.
inline bool in_core(const TileCore& core, int step, int j, int i, double offset_x, double offset_y) {
  return offset_x >= core.x0 / step - j && offset_x < core.x1 / step - j && offset_y >= core.y0 / step - i &&
         offset_y < core.y1 / step - i;
}

// Why the detector refuses a width x height image, or "" when it does not.
inline std::string image_size_problem(int width, int height, const DetectorConfig& config) {
  const int min_side = min_image_side(config);
  if (width >= min_side && height >= min_side) return "";
  return "image of " + std::to_string(width) + "x" + std::to_string(height) +
         " is smaller than the smallest filter allows (" + std::to_string(min_side) + "x" +
         std::to_string(min_side) + ")";
}

// Box-filter sums from a 32-bit unsigned integral image are exact, however
// far its entries wrap, while the true sum fits: a lobe of l x (2l - 1)
// pixels of up to 255 sums below 2^32 for l <= kMaxExactLobe. The GPU's
// signed 32-bit combination of a filter's lobes (-2 times one, up to 510
// times the lobe's area in all) needs l <= kMaxExactLobeSigned. Why a filter
// that fits in a width x height image has a larger lobe than `max_lobe`
// allows ("... beyond WHERE's exact 32-bit box sums; REMEDY"), or "".
constexpr int kMaxExactLobe = 2902, kMaxExactLobeSigned = 1451;
inline std::string filter_sum_problem(int width, int height, const DetectorConfig& config, int max_lobe,
                                      const std::string& where, const std::string& remedy) {
  for (int o = 0; o < config.n_octaves; ++o) {
    for (int l = 0; l < config.n_octave_layers + 2; ++l) {
      const int side = filter_size(o, l);
      if (side <= std::min(width, height) && side / 3 > max_lobe) {
        return "filter side " + std::to_string(side) + " (octave " + std::to_string(o) + ") is beyond " +
               where + "'s exact 32-bit box sums; " + remedy;
      }
    }
  }
  return "";
}

// Deterministic order of results: strongest response first; ties by y, x, size.
void sort_by_strength(std::vector<KeyPoint>& keypoints);
// The same order for keypoints with descriptors (rows move with them).
// Returns, for each new position, the index the entry had before.
std::vector<int> sort_by_strength(Features& features);

}  // namespace glsurf
