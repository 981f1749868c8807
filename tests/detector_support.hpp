// Helpers shared by the tests of the GPU detector and of its extrema, select
// and compact stages (test_gpu_detector.cpp, test_gpu_extrema.cpp,
// test_gpu_select.cpp, test_gpu_compact.cpp).
#pragma once

#include <vector>

#include "surf/keypoint.hpp"

namespace glsurf::test {

// Fraction of `a` with a partner in `b`: within 0.1 px, 1 % in size, same sign.
// (b is bucketed by whole pixel, so tens of thousands of points are cheap.)
double matched_fraction(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b);

}  // namespace glsurf::test
