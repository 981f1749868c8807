// Helpers shared by the tests: the shared headless context, seeded images and
// an exact comparison of integral tables that reports the first difference.
#pragma once

#include "cpu/integral.hpp"
#include "gl/context.hpp"
#include "io/image.hpp"
#include "surf/keypoint.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace glsurf::test {

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

// Keypoints for a flat 64 x 48 image: sub-pixel positions (the border's
// too) and sizes whose box sides and fractions differ, so that box means
// with different weights must still cancel exactly.
std::vector<KeyPoint> flat_patch_keypoints();

// "" when equal, else a description of the first differing entry.
std::string first_difference(const std::vector<std::uint32_t>& gpu, const cpu::IntegralImage& cpu);

}  // namespace glsurf::test
