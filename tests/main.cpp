#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "support.hpp"

#include <fstream>
#include <random>

#include <unistd.h>

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
         ", y=" + std::to_string(first / stride) + "): gpu " + std::to_string(gpu[first]) +
         ", cpu " + std::to_string(cpu.sums[first]);
}

}  // namespace glsurf::test
