// Helpers shared by the tests: the shared headless context, seeded images and
// an exact comparison of integral tables that reports the first difference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cpu/integral.hpp"
#include "gl/context.hpp"
#include "io/image.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::test {

// A Gaussian blob of standard deviation sigma centred at (cx, cy) on a flat
// background; amplitude > 0 is a light blob, < 0 a dark one.
inline GrayImage blob_image(int w, int h, double cx, double cy, double sigma, double background,
                            double amplitude) {
  GrayImage image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
      const double v = background + amplitude * std::exp(-r2 / (2 * sigma * sigma));
      image.at(x, y) = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
    }
  return image;
}

// One headless EGL context for the whole test process (created on first use;
// a failure to create it fails the GL tests, it does not skip them).
gl::Context& headless_context();

// A scratch shader folder (with common/ and broken/), removed on destruction.
struct ScratchShaderDir {
  std::filesystem::path root;
  explicit ScratchShaderDir(const std::string& name);
  ~ScratchShaderDir();
  ScratchShaderDir(const ScratchShaderDir&) = delete;
  ScratchShaderDir& operator=(const ScratchShaderDir&) = delete;
  void write(const std::string& path, const std::string& text) const;
};

GrayImage random_image(int width, int height, unsigned seed);

// The same keypoints in the same order: position, size and response equal.
bool same_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b);

// Keypoints for a flat 64 x 48 image: sub-pixel positions (the border's
// too) and sizes whose box sides and fractions differ, so that box means
// with different weights must still cancel exactly.
std::vector<KeyPoint> flat_patch_keypoints();

// A linear ramp: value c + a (x - cx) + b (y - cy), rounded integers a, b, c
// so that every pixel is exact; the caller keeps it within 0..255 where it
// is sampled (outside, it is clamped).
GrayImage ramp_image(int width, int height, double cx, double cy, int a, int b, int c);

// SURF's descriptor of a linear ramp from the definition alone (Bay et al.
// 2008): on a ramp every Haar response is the same vector, (gx, gy) in the
// keypoint's frame, so sub-region k (4 x 4, row by row) sums it weighted by
// W_k, the Gaussian weights (sigma 3.3 s, centred on the keypoint) of its
// 5 x 5 samples spaced s; s cancels. Values per sub-region: (sum dx, sum dy,
// sum |dx|, sum |dy|), or for `extended` OpenCV's split: dx and |dx| by
// dy >= 0 and dy < 0, then dy and |dy| by dx >= 0 and dx < 0. L2-normalised.
std::vector<double> ramp_descriptor(double gx, double gy, bool extended);

// Describes given keypoints (cpu::compute, GpuDetector::compute).
using ComputeFn =
    std::function<Features(const GrayImage&, const std::vector<KeyPoint>&, const DetectorConfig&)>;

// Checks `compute` on ramps in several directions against ramp_descriptor
// (each value within `tolerance`) and, where oriented, the angle against the
// ramp's direction (within 0.01 degrees), upright and oriented, 64 and 128
// values.
void check_ramp_descriptors(const ComputeFn& compute, double tolerance);

// "" when equal, else a description of the first differing entry.
std::string first_difference(const std::vector<std::uint32_t>& gpu, const cpu::IntegralImage& cpu);

}  // namespace glsurf::test
