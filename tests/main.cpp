#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "support.hpp"

namespace glsurf::test {

gl::Context& headless_context() {
  static gl::Context context = gl::Context::headless();
  context.make_current();
  return context;
}

ScratchShaderDir::ScratchShaderDir(const std::string& name) {
  root = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "common");
  std::filesystem::create_directories(root / "broken");
}

ScratchShaderDir::~ScratchShaderDir() { std::filesystem::remove_all(root); }

void ScratchShaderDir::write(const std::string& path, const std::string& text) const {
  std::ofstream(root / path) << text;
}

std::vector<KeyPoint> flat_patch_keypoints() {
  std::vector<KeyPoint> given;
  for (const float size : {9.0f, 13.7f, 22.2f, 51.0f}) {
    for (const float x : {-0.5f, 10.3f, 31.77f, 63.5f}) {
      KeyPoint k;
      k.x = x, k.y = 0.61f * x + 3.1f, k.size = size;
      given.push_back(k);
    }
  }
  return given;
}

GrayImage ramp_image(int width, int height, double cx, double cy, int a, int b, int c) {
  GrayImage image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const long v = std::lround(c + a * (x - cx) + b * (y - cy));
      image.at(x, y) = static_cast<std::uint8_t>(std::clamp(v, 0L, 255L));
    }
  return image;
}

std::vector<double> ramp_descriptor(double gx, double gy, bool extended) {
  const int per_region = extended ? 8 : 4;
  std::vector<double> v(16 * static_cast<size_t>(per_region), 0.0);
  for (int row = 0; row < 20; ++row)
    for (int col = 0; col < 20; ++col) {
      const double ox = col - 9.5, oy = row - 9.5;                        // in units of s
      const double w = std::exp(-(ox * ox + oy * oy) / (2 * 6.0 * 6.0));  // sigma 6s
      double* r = &v[static_cast<size_t>((row / 5) * 4 + col / 5) * static_cast<size_t>(per_region)];
      if (!extended) {
        r[0] += w * gx, r[1] += w * gy, r[2] += w * std::abs(gx), r[3] += w * std::abs(gy);
      } else {
        r[gy >= 0 ? 0 : 2] += w * gx, r[gy >= 0 ? 1 : 3] += w * std::abs(gx);
        r[gx >= 0 ? 4 : 6] += w * gy, r[gx >= 0 ? 5 : 7] += w * std::abs(gy);
      }
    }
  double norm = 0;
  for (double x : v) norm += x * x;
  for (double& x : v) x /= std::sqrt(norm);
  return v;
}

void check_ramp_descriptors(const ComputeFn& compute, double tolerance) {
  // Size 20 (s = 2.67): the descriptor's samples lie within 39 px of the
  // keypoint at any angle, where |a dx + b dy| <= 117 keeps 128 +- that in
  // range. A sub-pixel position: box means interpolate between aligned
  // boxes, whose Haar responses on a ramp are all the same.
  const double cx = 60.3, cy = 59.6;
  KeyPoint k;
  k.x = static_cast<float>(cx), k.y = static_cast<float>(cy), k.size = 20;
  const int ramps[][2] = {{1, 0}, {0, 1}, {2, 1}, {-2, 1}, {1, -2}, {-1, -1}};
  for (const auto& ab : ramps) {
    const GrayImage image = ramp_image(120, 120, cx, cy, ab[0], ab[1], 128);
    for (const bool upright : {true, false}) {
      for (const bool extended : {false, true}) {
        // Oriented, the gradient lies along the keypoint's x axis: dy is zero
        // but for rounding, which the extended split's tolerance ignores.
        DetectorConfig config;
        config.upright = upright;
        config.extended = extended;
        const Features f = compute(image, {k}, config);
        REQUIRE(f.keypoints.size() == 1);
        const std::vector<double> want =
            upright ? ramp_descriptor(ab[0], ab[1], extended) : ramp_descriptor(1, 0, extended);
        REQUIRE(f.descriptor_size == static_cast<int>(want.size()));
        double worst = 0;
        for (size_t i = 0; i < want.size(); ++i)
          worst = std::max(worst, std::abs(f.descriptor(0)[i] - want[i]));
        // Counter-clockwise on screen, y down: the gradient (a, b) points at atan2(-b, a).
        const double angle =
            upright ? 0.0 : std::fmod(std::atan2(-ab[1], ab[0]) * 180 / 3.14159265358979323846 + 360, 360);
        INFO("ramp (" << ab[0] << ", " << ab[1] << "), upright " << upright << ", extended " << extended
                      << ": largest difference " << worst << ", angle " << f.keypoints[0].angle << " (want "
                      << angle << ")");
        CHECK(worst <= tolerance);
        CHECK(std::abs(std::remainder(f.keypoints[0].angle - angle, 360.0)) <= 0.01);
      }
    }
  }
}

bool same_keypoints(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const KeyPoint& p, const KeyPoint& q) {
    return p.x == q.x && p.y == q.y && p.size == q.size && p.response == q.response;
  });
}

GrayImage random_image(int width, int height, unsigned seed) {
  GrayImage image(width, height);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& p : image.pixels) p = static_cast<std::uint8_t>(byte(rng));
  return image;
}

std::string first_difference(const std::vector<std::uint32_t>& gpu, const cpu::IntegralImage& cpu) {
  if (gpu.size() != cpu.sums.size()) {
    return "size " + std::to_string(gpu.size()) + " != " + std::to_string(cpu.sums.size());
  }
  const size_t stride = static_cast<size_t>(cpu.width) + 1;
  size_t count = 0, first = gpu.size();
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (gpu[i] != cpu.sums[i]) {
      if (first == gpu.size()) first = i;
      ++count;
    }
  }
  if (count == 0) return "";
  return std::to_string(count) + " entries differ, first at (x=" + std::to_string(first % stride) +
         ", y=" + std::to_string(first / stride) + "): gpu " + std::to_string(gpu[first]) + ", cpu " +
         std::to_string(cpu.sums[first]);
}

}  // namespace glsurf::test
