// Helpers shared by the GPU orientation and descriptor tests
// (describe_support.hpp).
#include "describe_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

namespace glsurf::test {

std::vector<int> pair_up(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  std::map<std::pair<int, int>, std::vector<int>> cells;
  for (size_t i = 0; i < b.size(); ++i) {
    cells[{static_cast<int>(std::floor(b[i].x)), static_cast<int>(std::floor(b[i].y))}].push_back(
        static_cast<int>(i));
  }
  std::vector<int> out(a.size(), -1);
  for (size_t i = 0; i < a.size(); ++i) {
    const int cx = static_cast<int>(std::floor(a[i].x)), cy = static_cast<int>(std::floor(a[i].y));
    for (int dy = -1; dy <= 1 && out[i] < 0; ++dy)
      for (int dx = -1; dx <= 1 && out[i] < 0; ++dx) {
        const auto it = cells.find({cx + dx, cy + dy});
        if (it == cells.end()) continue;
        for (int j : it->second) {
          if (std::hypot(a[i].x - b[j].x, a[i].y - b[j].y) <= 0.1 &&
              std::abs(a[i].size - b[j].size) <= 0.01 * a[i].size) {
            out[i] = j;
            break;
          }
        }
      }
  }
  return out;
}

double dot(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

Both detect_and_compute_both(const GrayImage& image, const DetectorConfig& config, int buffer_limit) {
  GpuDetector detector(test::headless_context(), config);
  detector.runner().set_check_every_pass(true);
  if (buffer_limit >= 0) detector.limit_buffer_texels(buffer_limit);
  Both both{detector.detect_and_compute(image), cpu::detect_and_compute(image, config)};
  REQUIRE(both.gpu.descriptor_size == descriptor_size(config));
  REQUIRE(both.gpu.descriptors.size() ==
          both.gpu.keypoints.size() * static_cast<size_t>(descriptor_size(config)));
  return both;
}

size_t compare(const GrayImage& image, const DetectorConfig& config, int buffer_limit) {
  const auto [gpu, cpu] = detect_and_compute_both(image, config, buffer_limit);
  const cpu::IntegralImage integral = cpu::integral_image(image);
  const int n = descriptor_size(config);
  const std::vector<int> partner = pair_up(gpu.keypoints, cpu.keypoints);
  // The GPU must find the CPU's keypoints, not only describe those it finds:
  // the fractions below are of the GPU's count, which an empty or cut-short
  // list would satisfy.
  REQUIRE(cpu.keypoints.size() > 100);
  const std::vector<int> reverse = pair_up(cpu.keypoints, gpu.keypoints);
  REQUIRE(std::count_if(reverse.begin(), reverse.end(), [](int k) { return k >= 0; }) >=
          0.99 * static_cast<double>(cpu.keypoints.size()));

  int paired = 0, close = 0, unambiguous = 0, nearest_is_partner = 0, unit = 0;
  double squared_angle_error = 0, largest = 0;
  int far = 0;
  for (size_t i = 0; i < gpu.keypoints.size(); ++i) {
    unit += std::abs(dot(gpu.descriptor(i), gpu.descriptor(i), n) - 1.0) < 1e-4;
    if (partner[i] < 0) continue;
    ++paired;
    const size_t j = static_cast<size_t>(partner[i]);
    close += dot(gpu.descriptor(i), cpu.descriptor(j), n) >= 0.999;
    if (!config.upright) {
      const cpu::Orientation o =
          cpu::orientation(integral, cpu.keypoints[j], true, config.second_orientation);
      if (o.runner_up < 0.999f * o.strength) {
        ++unambiguous;
        const double e = std::remainder(gpu.keypoints[i].angle - cpu.keypoints[j].angle, 360.0);
        squared_angle_error += e * e;
        far += std::abs(e) > 0.05;
        largest = std::max(largest, std::abs(e));
      }
    } else {
      CHECK(gpu.keypoints[i].angle == 0.0f);
    }
    size_t best = 0;
    double best_dot = -2;
    for (size_t m = 0; m < cpu.keypoints.size(); ++m) {
      const double d = dot(gpu.descriptor(i), cpu.descriptor(m), n);
      if (d > best_dot) best_dot = d, best = m;
    }
    nearest_is_partner += best == j;
  }
  const double rms = unambiguous ? std::sqrt(squared_angle_error / unambiguous) : 0.0;
  INFO("GPU " << gpu.keypoints.size() << ", CPU " << cpu.keypoints.size() << ", paired " << paired
              << ", cos>=0.999 " << close << ", unambiguous " << unambiguous << ", orientation RMS " << rms
              << " deg, " << far << " beyond 0.05 deg, NN " << nearest_is_partner);
  MESSAGE("GPU " << gpu.keypoints.size() << ", paired " << paired << ", cos>=0.999 " << close
                 << ", unambiguous " << unambiguous << ", orientation RMS " << rms << " deg, " << far
                 << " beyond 0.05 deg (largest " << largest << "), NN " << nearest_is_partner);
  REQUIRE(paired >= 0.99 * gpu.keypoints.size());
  CHECK(unit == static_cast<int>(gpu.keypoints.size()));
  // The CPU's sums start from +0 and never give -0; neither may the GPU's
  // read-back (a "-0" in the text output where the CPU writes "0").
  CHECK(std::count_if(gpu.descriptors.begin(), gpu.descriptors.end(),
                      [](float v) { return v == 0.0f && std::signbit(v); }) == 0);
  CHECK(close >= 0.99 * paired);
  CHECK(nearest_is_partner >= 0.99 * paired);
  if (!config.upright) {
    CHECK(unambiguous >= 0.8 * paired);
    CHECK(rms <= 0.5);
    CHECK(rms <= 0.01);
    CHECK(far * 1000 <= unambiguous);
    // On a peak of window sums so flat that the recentring creeps (noise at
    // threshold 0), float32 and float64 may stop one extrapolated step apart,
    // and a step is at most cpu::kOrientationLeap (1 degree); 10,000 noise
    // keypoints have one such keypoint 0.66 degrees apart.
    CHECK(largest <= 1.0);
  }
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  return gpu.keypoints.size();
}

}  // namespace glsurf::test
