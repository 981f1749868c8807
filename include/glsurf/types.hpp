// The values glsurf's calls take and give, in OpenCV's vocabulary: an 8-bit
// grey image, keypoints (cv::KeyPoint), keypoints with descriptors (what
// detectAndCompute returns), matches (cv::DMatch), and the one exception type.
//
// Coordinates: (0, 0) is the centre of the top-left pixel, x right, y down.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace glsurf {

// Every failure glsurf reports: bad input (an image, a file, a parameter), no
// OpenGL 3.3 context, a driver limit, a shader that does not build. The
// message is one line that names what failed.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// 8-bit grey levels, row by row, no padding.
struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;

  GrayImage() = default;
  GrayImage(int w, int h, std::uint8_t fill = 0)
      : width(w), height(h), pixels(static_cast<size_t>(w) * h, fill) {}
  std::uint8_t at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
  std::uint8_t& at(int x, int y) { return pixels[static_cast<size_t>(y) * width + x]; }
};

// A SURF keypoint, as OpenCV's SURF fills cv::KeyPoint:
//   x, y       position in pixels
//   size       the interpolated box-filter side L in pixels; the scale is
//              sigma = 1.2 L / 9
//   angle      orientation in degrees in [0, 360), counter-clockwise as the
//              image is shown; 0 for upright descriptors, -1 when only detected
//   response   det(H) at the detected sample, in (grey level)^2
//   octave     the octave it was found in
//   laplacian  sign of the Hessian's trace: +1 a dark blob on a light
//              background, -1 a light one on dark (OpenCV's class_id)
struct KeyPoint {
  float x = 0, y = 0;
  float size = 0;
  float angle = -1;
  float response = 0;
  int octave = 0;
  int laplacian = 0;
};

// Which detector and descriptor made a set of features: SURF (64 or 128
// signed values) or SIFT (128 values >= 0). Features of different types are
// never matched against each other.
enum class FeatureType { Surf, Sift };
inline const char* to_string(FeatureType type) { return type == FeatureType::Sift ? "sift" : "surf"; }

// Keypoints with their descriptors: descriptor_size values per keypoint, row
// by row, each row of unit length.
struct Features {
  std::vector<KeyPoint> keypoints;
  std::vector<float> descriptors;
  int descriptor_size = 0;
  FeatureType type = FeatureType::Surf;
  const float* descriptor(std::size_t i) const {
    return &descriptors[i * static_cast<std::size_t>(descriptor_size)];
  }
};

// A match from keypoint `query` of one set to keypoint `train` of the other,
// and the Euclidean distance between their descriptors (cv::DMatch).
struct Match {
  int query = -1, train = -1;
  float distance = 0;
};

}  // namespace glsurf
