// CPU reference SIFT (Lowe 2004): scale space, DoG extrema with sub-pixel
// refinement, orientation histograms and 4 x 4 x 8 descriptors, written
// plainly from the paper with the conventions of docs/notes/sift.md, which
// every GPU SIFT stage (src/sift/) is tested against. Also the
// `--features sift --backend cpu` path.
#pragma once

#include <vector>

#include "glsurf/detector.hpp"
#include "glsurf/types.hpp"

namespace glsurf::cpu::sift {

// Pixels that no extremum may come closer to than this, in octave pixels.
constexpr int kBorder = 5;
// Refinement steps before a candidate that keeps moving is dropped.
constexpr int kMaxRefineSteps = 5;
// Orientations kept per extremum, the highest peaks first.
constexpr int kMaxOrientations = 4;
constexpr int kOrientationBins = 36;
constexpr int kDescriptorWidth = 4;  // d: d x d spatial bins
constexpr int kDescriptorBins = 8;   // n: orientation bins of each
constexpr int kDescriptorSize = kDescriptorWidth * kDescriptorWidth * kDescriptorBins;  // 128

// Whether every function here takes `config`: n_octaves 0..32, n_octave_layers
// 1..64 (the layer is packed in 8 bits of KeyPoint::octave), sigma in
// (0, 64], contrast_threshold >= 0, edge_threshold > 0 (both finite),
// first_octave -1 or 0, max_features >= 0. The others assert it.
bool valid_config(const SiftConfig& config);

// A float image, row by row.
struct Image {
  int width = 0, height = 0;
  std::vector<float> pixels;
  Image() = default;
  Image(int w, int h) : width(w), height(h), pixels(static_cast<size_t>(w) * h, 0.0f) {}
  float at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
  float& at(int x, int y) { return pixels[static_cast<size_t>(y) * width + x]; }
};

// The octaves a width x height image gets (n_octaves, or the automatic count),
// each octave's index o (first_octave, first_octave + 1, ...) and size.
struct OctaveSize {
  int octave = 0;  // o: pixel i of the octave is at image coordinate i * 2^o
  int width = 0, height = 0;
};
std::vector<OctaveSize> octave_sizes(int width, int height, const SiftConfig& config);

// sigma_0 2^(i / s) for level i of an octave, in that octave's pixels.
double level_sigma(const SiftConfig& config, int level);
// The blur that takes level i - 1 to level i (i >= 1), and the one that takes
// the input (assumed blurred by 0.5 pixel, 1.0 once doubled) to level 0.
double increment_sigma(const SiftConfig& config, int level);
// The separable kernel for sigma: 2 r + 1 weights, r = ceil(4 sigma),
// exp(-k^2 / (2 sigma^2)) normalised to sum 1 (computed in double).
std::vector<float> gaussian_kernel(double sigma);

// Gaussian and DoG images of every octave: gaussian[k * (s + 3) + i],
// dog[k * (s + 2) + i] = gaussian[k * (s + 3) + i + 1] - gaussian[k * (s + 3) + i],
// k the octave's position in octave_sizes().
struct Pyramid {
  std::vector<OctaveSize> octaves;
  int levels = 0;  // s + 3
  std::vector<Image> gaussian, dog;
  const Image& gauss(int k, int i) const { return gaussian[static_cast<size_t>(k) * levels + i]; }
  const Image& diff(int k, int i) const { return dog[static_cast<size_t>(k) * (levels - 1) + i]; }
};
// The input scaled to 0..1 (value / 255), doubled when first_octave is -1.
Image octave_base(const GrayImage& image, const SiftConfig& config);
// One separable blur pass pair with gaussian_kernel(sigma), edges replicated.
Image blur(const Image& image, double sigma);
// Every second pixel from (0, 0): ceil(W / 2) x ceil(H / 2).
Image downsample(const Image& image);
Pyramid build_pyramid(const GrayImage& image, const SiftConfig& config);

// A refined DoG extremum (docs/notes/sift.md, Extrema).
struct Extremum {
  int k = 0;               // octave position in Pyramid::octaves
  int layer = 1;           // DoG layer after the refinement's moves, 1..s
  int px = 0, py = 0;      // sample after the moves, octave pixels
  float x = 0, y = 0;      // refined position, octave pixels
  float scale_offset = 0;  // sub-layer offset, in (-0.5, 0.5)
  float sigma = 0;         // sigma_0 2^((layer + scale_offset) / s), octave pixels
  float value = 0;         // the fitted DoG value D^ (its sign: laplacian)
  KeyPoint keypoint;       // in image coordinates, angle -1 (fields: docs/notes/sift.md)
};
// Every extremum of the pyramid, strongest first (sort_by_strength on the
// keypoints, the extrema moving with them). Two candidates that refine to the
// same (k, layer, px, py) give the same extremum, everything after the moves
// being computed at that sample: it is listed once.
std::vector<Extremum> find_extrema(const Pyramid& pyramid, const SiftConfig& config);
// The extremum a keypoint in image coordinates stands for (its octave, layer
// and sub-layer offset from KeyPoint::octave as OpenCV packs it, its position
// and sigma from x, y and size), for describing given keypoints. Throws
// glsurf::Error for an octave or layer the pyramid lacks, a position outside
// [-1, W] x [-1, H] in that octave's pixels, or a size that is not positive
// and finite.
Extremum from_keypoint(const KeyPoint& keypoint, const Pyramid& pyramid, const SiftConfig& config);

// The smoothed 36-bin gradient histogram around an extremum, on its Gaussian
// image (docs/notes/sift.md, Orientation).
std::vector<float> orientation_histogram(const Pyramid& pyramid, const Extremum& extremum);
// Its orientations, degrees in [0, 360) counter-clockwise as seen on screen,
// highest peak first, at most kMaxOrientations.
std::vector<float> orientations(const Pyramid& pyramid, const Extremum& extremum);
// The 128 values for one orientation (degrees), normalised, clamped at 0.2,
// normalised again; RootSIFT on top when asked (docs/notes/sift.md, Descriptor).
void describe(const Pyramid& pyramid, const Extremum& extremum, float angle, bool root_sift, float* out);
// describe's last step on kDescriptorSize histogram values, in place: v /= |v|_2,
// v = min(v, 0.2), v /= |v|_2 (the norms in double; all-zero stays zero), then
// with root_sift v /= |v|_1, v = sqrt(v). The result has unit length; values
// may exceed 0.2 again after the second normalisation.
void normalise_descriptor(float* values, bool root_sift);

// Keypoints only (angle -1), strongest first, max_features applied.
std::vector<KeyPoint> detect(const GrayImage& image, const SiftConfig& config);
// Keypoints, one entry per orientation, with descriptors (descriptor_size
// 128), strongest first; max_features counts entries.
Features detect_and_compute(const GrayImage& image, const SiftConfig& config);
// Orientations and descriptors of given keypoints (from detect(), or OpenCV's
// SIFT: the same packing of octave), one entry per orientation, in the given
// order; a keypoint with angle >= 0 keeps it (one entry; glsurf's angle,
// 360 minus OpenCV's). Throws glsurf::Error as from_keypoint.
Features compute(const GrayImage& image, const std::vector<KeyPoint>& keypoints, const SiftConfig& config);

// A float descriptor (unit length, values in [0, 1]) as the uint8 values
// VLFeat and COLMAP store: round(512 v), saturated at 255 (values above
// 255.5 / 512, rare after the clamp at 0.2, saturate).
void to_uint8(const float* descriptor, int n, unsigned char* out);

}  // namespace glsurf::cpu::sift
