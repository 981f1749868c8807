// Helpers shared by the GPU orientation and descriptor tests
// (test_gpu_orientation.cpp, test_gpu_descriptor.cpp): pairing keypoints of
// two lists, detection and description on both backends, and compare(), which
// holds the GPU's orientations and descriptors of one image to the CPU
// reference's with the tolerances both files' top comments give.
#pragma once

#include <cstddef>
#include <vector>

#include "io/image.hpp"
#include "surf/keypoint.hpp"

namespace glsurf::test {

// Index in `b` of the keypoint at a's position (0.1 px) and size (1 %), or -1.
std::vector<int> pair_up(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b);

double dot(const float* a, const float* b, int n);

// Detection and description of `image` on the GPU (every pass checked for
// GL errors; buffer_limit >= 0 caps the detector's buffer textures, 0: every
// input 2-D) and the CPU.
struct Both {
  Features gpu, cpu;
};
Both detect_and_compute_both(const GrayImage& image, const DetectorConfig& config, int buffer_limit);

// GPU against CPU on one image, every keypoint paired by position and size:
// the GPU finds >= 99 % of the CPU's keypoints, and of the GPU's paired
// ones the descriptor tolerances (test_gpu_descriptor.cpp) and, unless
// upright (where every angle is 0), the orientation ones
// (test_gpu_orientation.cpp).
// Returns the number of GPU keypoints.
size_t compare(const GrayImage& image, const DetectorConfig& config, int buffer_limit = -1);

}  // namespace glsurf::test
