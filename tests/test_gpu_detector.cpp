// GPU keypoints (Hessian, extrema, interpolation; read back from the
// candidate maps) against the CPU reference detector on real photographs.
//
// Criterion (issue 3): at least 99 % of CPU keypoints have a GPU keypoint
// within 0.1 px and 1 % in size, with the same Laplacian sign, and the other
// way round; counts within 1 %. Why not 100 %: det(H) differs by float
// rounding (see test_gpu_hessian.cpp), which can flip a near-tie in the
// 26-neighbour comparison or an offset within rounding of the 0.5 limit.
#include <doctest/doctest.h>

#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "support.hpp"
#include "surf/extrema.hpp"
#include "surf/integral.hpp"

#include <cmath>

using namespace glsurf;

namespace {

std::vector<KeyPoint> gpu_candidates(const GrayImage& image, const DetectorConfig& config) {
  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  gl::Texture texture(image.width, image.height, gl::Format::R8, "image");
  texture.upload(image.pixels.data());
  IntegralStage integral(shaders);
  integral.configure(image.width, image.height);
  HessianStage hessian(shaders, config);
  hessian.configure(image.width, image.height);
  ExtremaStage extrema(shaders, config);
  extrema.configure(hessian, image.width, image.height);
  hessian.run(runner, integral.run(runner, texture));
  extrema.run(runner, hessian);

  std::vector<KeyPoint> out;
  const std::vector<float> v = extrema.atlas().download_f32();
  const int stride = extrema.atlas().width();
  for (const AtlasRect& r : extrema.rects()) {
    for (int y = r.y; y < r.y + r.height; ++y) {
      for (int x = r.x; x < r.x + r.width; ++x) {
        const size_t i = 4 * (static_cast<size_t>(y) * stride + x);
        if (v[i + 3] == 0.0f) continue;
        KeyPoint k;
        k.x = v[i];
        k.y = v[i + 1];
        k.size = std::abs(v[i + 2]);
        k.laplacian = v[i + 2] > 0 ? 1 : -1;
        k.response = v[i + 3];
        k.octave = r.octave;
        out.push_back(k);
      }
    }
  }
  return out;
}

// Fraction of `a` with a partner in `b`: within 0.1 px, 1 % in size, same sign.
double matched_fraction(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  if (a.empty()) return 1.0;
  size_t matched = 0;
  for (const KeyPoint& p : a) {
    for (const KeyPoint& q : b) {
      if (std::hypot(p.x - q.x, p.y - q.y) <= 0.1 && std::abs(p.size - q.size) <= 0.01 * p.size &&
          p.laplacian == q.laplacian) {
        ++matched;
        break;
      }
    }
  }
  return static_cast<double>(matched) / a.size();
}

void compare(const GrayImage& image, const DetectorConfig& config) {
  const std::vector<KeyPoint> cpu = cpu::detect(image, config);
  const std::vector<KeyPoint> gpu = gpu_candidates(image, config);
  INFO("CPU " << cpu.size() << " keypoints, GPU " << gpu.size());
  REQUIRE(cpu.size() > 50);  // the comparison means something
  CHECK(std::abs(static_cast<double>(gpu.size()) - cpu.size()) <= 0.01 * cpu.size());
  CHECK(matched_fraction(cpu, gpu) >= 0.99);
  CHECK(matched_fraction(gpu, cpu) >= 0.99);
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
}

}  // namespace

TEST_SUITE("gl") {

TEST_CASE("GPU keypoints agree with the CPU reference on box.png") {
  test::headless_context();
  compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{});
}

TEST_CASE("GPU keypoints agree with the CPU reference on graf1.png") {
  test::headless_context();
  compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), DetectorConfig{});
}

TEST_CASE("GPU keypoints agree with the CPU reference with 3 layers per octave and a low threshold") {
  test::headless_context();
  DetectorConfig config;
  config.n_octave_layers = 3;
  config.hessian_threshold = 20;
  compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), config);
}

}  // TEST_SUITE
