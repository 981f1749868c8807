// Helpers shared by the tests: the shared headless context, seeded images and
// an exact comparison of integral tables that reports the first difference.
#pragma once

#include "cpu/integral.hpp"
#include "gl/context.hpp"
#include "io/image.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace glsurf::test {

// One headless EGL context for the whole test process (created on first use;
// a failure to create it fails the GL tests, it does not skip them).
gl::Context& headless_context();

GrayImage random_image(int width, int height, unsigned seed);

// "" when equal, else a description of the first differing entry.
std::string first_difference(const std::vector<std::uint32_t>& gpu, const cpu::IntegralImage& cpu);

}  // namespace glsurf::test
