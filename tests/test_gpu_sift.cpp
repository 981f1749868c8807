// GPU SIFT detection (src/sift/) against the CPU reference (cpu/sift.hpp).
//
// Tolerances:
//   * scale space: every Gaussian and DoG image within kImageTolerance = 1e-5
//     (max abs difference, on the 0..1 scale) of cpu::sift::build_pyramid's.
//     Both sum the same float products in the same order, so they may differ
//     only where a driver rounds differently: a fused multiply-add (GPUs
//     contract a * b + c freely) rounds once instead of twice, at most 2^-24
//     relative per tap of a sum of weights 1, and each level's blur carries
//     the differences of the one before on (a blur does not amplify them):
//     about 30 taps x 6 levels x 2^-24 < 1.1e-5 at worst, much less in
//     practice. llvmpipe agrees bit for bit (0 on every image here).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu/sift.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "io/image.hpp"
#include "sift/layout.hpp"
#include "sift/scale_space.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

constexpr double kImageTolerance = 1e-5;

GrayImage crop(const GrayImage& image, int x0, int y0, int w, int h) {
  GrayImage out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out.at(x, y) = image.at(x0 + x, y0 + y);
  return out;
}

// The largest |GPU - CPU| over every image of one atlas.
double atlas_difference(const std::vector<float>& atlas, const sift::AtlasLayout& layout,
                        const std::vector<cpu::sift::Image>& images) {
  REQUIRE(images.size() == layout.rects.size());
  double worst = 0, largest = 0;
  for (size_t n = 0; n < images.size(); ++n) {
    const glm::ivec4 r = layout.rects[n];
    const cpu::sift::Image& image = images[n];
    REQUIRE(image.width == r.z);
    REQUIRE(image.height == r.w);
    for (int y = 0; y < r.w; ++y) {
      for (int x = 0; x < r.z; ++x) {
        const float gpu = atlas[static_cast<size_t>(r.y + y) * layout.size.x + r.x + x];
        worst = std::max(worst, std::abs(static_cast<double>(gpu) - image.at(x, y)));
        largest = std::max(largest, std::abs(static_cast<double>(image.at(x, y))));
      }
    }
  }
  CHECK(largest > 0.01);  // not a comparison of empty images
  return worst;
}

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("sift scale space: every Gaussian and DoG image as the CPU reference's") {
    test::headless_context();
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    struct Case {
      std::string name;
      GrayImage image;
      SiftConfig config;
    };
    std::vector<Case> cases;
    cases.push_back({"box", load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), SiftConfig{}});
    cases.push_back({"graf1 crop", crop(graf, 200, 150, 301, 257), SiftConfig{}});
    SiftConfig undoubled;
    undoubled.first_octave = 0;
    cases.push_back({"noise, first octave 0", test::random_image(171, 133, 5), undoubled});
    SiftConfig layers;
    layers.n_octave_layers = 5;
    layers.sigma = 2.0f;
    layers.n_octaves = 3;
    cases.push_back({"noise, 5 layers, sigma 2", test::random_image(97, 64, 6), layers});
    SiftConfig two;
    two.n_octave_layers = 2;
    cases.push_back({"box, 2 layers", load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), two});
    for (const Case& c : cases) {
      CAPTURE(c.name);
      sift::ScaleSpaceStage stage(shaders, c.config);
      gl::PassRunner runner;
      runner.set_check_every_pass(true);
      stage.configure(c.image.width, c.image.height);
      stage.run(runner, c.image);
      const cpu::sift::Pyramid cpu = cpu::sift::build_pyramid(c.image, c.config);
      REQUIRE(stage.octaves().size() == cpu.octaves.size());
      const double gaussian =
          atlas_difference(stage.gaussian().download_f32(), stage.gaussian_layout(), cpu.gaussian);
      const double dog = atlas_difference(stage.dog().download_f32(), stage.dog_layout(), cpu.dog);
      MESSAGE(c.name << ": Gaussian max |GPU - CPU| " << gaussian << ", DoG " << dog);
      CHECK(gaussian <= kImageTolerance);
      CHECK(dog <= kImageTolerance);
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }
}  // TEST_SUITE
