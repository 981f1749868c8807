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
//   * early-Z marks: exact (no cell differs) against the same strict test on
//     the CPU over the GPU's own DoG.
//   * point list: each CPU extremum has an entry of its octave and layer
//     within 1e-4 octave pixels, sigma and D^ within 1e-5 relative, offset_s
//     within 1e-4, and at most 1 % of the entries have no CPU extremum: the
//     GPU solves the 3 x 3 system and fits D^ in float (GLSL 3.30 has no
//     double), the CPU in double, so offsets differ by about 1e-6.
//   * keypoints: at least 99 % of the CPU's keypoints have a GPU keypoint
//     within 0.1 px, of the same octave and layer and of size within 0.1 %,
//     and the other way round. The images agree (above), so what may differ
//     is the float solve: a candidate whose offset is within about 1e-6 of
//     0.5 may move on one side and not the other, and one near the contrast
//     or edge test's bound may pass on one side only; position and size
//     agree far closer than the bounds (1e-5 px, 1e-6) where both keep it.
//     Measured: 100 % both ways on every image here. Two runs give the same
//     keypoints in the same order.
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
#include "sift/detector.hpp"
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

// Noise of features about `cell` pixels across: a random image of 1 / cell
// the size, interpolated bilinearly.
GrayImage smooth_noise(int width, int height, int cell, unsigned seed) {
  const GrayImage coarse = test::random_image(width / cell + 2, height / cell + 2, seed);
  GrayImage out(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int cx = x / cell, cy = y / cell;
      const double fx = static_cast<double>(x % cell) / cell, fy = static_cast<double>(y % cell) / cell;
      const double v = (1 - fy) * ((1 - fx) * coarse.at(cx, cy) + fx * coarse.at(cx + 1, cy)) +
                       fy * ((1 - fx) * coarse.at(cx, cy + 1) + fx * coarse.at(cx + 1, cy + 1));
      out.at(x, y) = static_cast<std::uint8_t>(std::lround(v));
    }
  }
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
      const cpu::sift::Pyramid cpu = cpu::sift::build_pyramid(c.image, c.config);
      // The columns from the scratch's buffer copy, and from the 2-D
      // scratch (as for an image too large for the driver's buffer textures).
      for (const int buffer_limit : {-1, 0}) {
        CAPTURE(c.name);
        CAPTURE(buffer_limit);
        sift::ScaleSpaceStage stage(shaders, c.config);
        gl::PassRunner runner;
        runner.set_check_every_pass(true);
        stage.limit_buffer_texels(buffer_limit);
        stage.configure(c.image.width, c.image.height);
        stage.run(runner, c.image);
        REQUIRE(stage.octaves().size() == cpu.octaves.size());
        const double gaussian =
            atlas_difference(stage.gaussian().download_f32(), stage.gaussian_layout(), cpu.gaussian);
        const double dog = atlas_difference(stage.dog().download_f32(), stage.dog_layout(), cpu.dog);
        MESSAGE(c.name << std::string(buffer_limit == 0 ? ", 2-D scratch" : "")
                       << ": Gaussian max |GPU - CPU| " << gaussian << ", DoG " << dog);
        CHECK(gaussian <= kImageTolerance);
        CHECK(dog <= kImageTolerance);
      }
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }
}  // TEST_SUITE

namespace {

// The fraction of `a`'s keypoints with a partner in `b`: within kPosition px
// (image coordinates), the same octave and layer (OpenCV's packing, low 16
// bits), size within kSize relative.
constexpr double kPosition = 0.1, kSize = 1e-3;

double partnered(const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
  if (a.empty()) return 1.0;
  std::vector<KeyPoint> sorted = b;
  std::sort(sorted.begin(), sorted.end(), [](const KeyPoint& p, const KeyPoint& q) { return p.x < q.x; });
  size_t found = 0;
  for (const KeyPoint& k : a) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), k.x - kPosition,
                               [](const KeyPoint& p, double x) { return p.x < x; });
    for (; it != sorted.end() && it->x <= k.x + kPosition; ++it) {
      if (std::hypot(it->x - k.x, it->y - k.y) <= kPosition && (it->octave & 0xFFFF) == (k.octave & 0xFFFF) &&
          std::abs(it->size - k.size) <= kSize * k.size) {
        ++found;
        break;
      }
    }
  }
  return static_cast<double>(found) / a.size();
}

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("sift detect: the CPU reference's keypoints, both ways, on photos and noise") {
    test::headless_context();
    const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    struct Case {
      std::string name;
      GrayImage image;
      SiftConfig config;
    };
    std::vector<Case> cases;
    cases.push_back({"box", load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), SiftConfig{}});
    cases.push_back({"box_in_scene", load_gray(GLSURF_TEST_ASSET_DIR "/box_in_scene.png"), SiftConfig{}});
    cases.push_back({"graf1 crop", crop(graf, 100, 80, 400, 320), SiftConfig{}});
    cases.push_back({"noise", test::random_image(400, 300, 11), SiftConfig{}});
    cases.push_back({"smooth noise", smooth_noise(400, 300, 6, 12), SiftConfig{}});
    cases.push_back({"graf1", graf, SiftConfig{}});
    cases.push_back({"graf3", load_gray(GLSURF_TEST_ASSET_DIR "/graf3.png"), SiftConfig{}});
    SiftConfig undoubled;
    undoubled.first_octave = 0;
    undoubled.n_octave_layers = 4;
    cases.push_back({"graf1 crop, first octave 0, 4 layers", crop(graf, 300, 200, 333, 277), undoubled});
    for (const Case& c : cases) {
      CAPTURE(c.name);
      sift::GpuSift gpu(test::headless_context(), c.config);
      gpu.runner().set_check_every_pass(true);
      const std::vector<KeyPoint> g = gpu.detect(c.image);
      const std::vector<KeyPoint> cpu = cpu::sift::detect(c.image, c.config);
      const double cpu_found = partnered(cpu, g), gpu_found = partnered(g, cpu);
      MESSAGE(c.name << ": CPU " << cpu.size() << ", GPU " << g.size() << " (" << gpu.duplicates_last_frame()
                     << " copies dropped); CPU's with a GPU partner " << cpu_found
                     << ", GPU's with a CPU partner " << gpu_found);
      CHECK(cpu.size() > 100);
      CHECK(cpu_found >= 0.99);
      CHECK(gpu_found >= 0.99);
      // Determinism: a second run gives the same keypoints in the same order.
      const std::vector<KeyPoint> again = gpu.detect(c.image);
      CHECK(test::same_keypoints(g, again));
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }
}  // TEST_SUITE

TEST_SUITE("gl") {
  TEST_CASE("sift point list: the CPU reference's extrema in octave pixels, with octave, layer and offset") {
    // Each CPU extremum has a list entry of the same octave and layer within
    // 1e-4 octave pixels, sigma and D^ within 1e-5 relative, offset_s within
    // 1e-4 (float against the CPU's double solve), and no entry lacks one.
    test::headless_context();
    const GrayImage image = crop(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), 400, 300, 300, 240);
    const SiftConfig config;
    sift::GpuSift gpu(test::headless_context(), config);
    gpu.runner().set_check_every_pass(true);
    gpu.detect(image);
    const sift::GpuSift::PointList list = gpu.point_list();
    REQUIRE(list.count > 0);
    const std::vector<float> points = list.points->download_f32(), where = list.where->download_f32();
    const std::vector<cpu::sift::Extremum> extrema =
        cpu::sift::find_extrema(cpu::sift::build_pyramid(image, config), config);
    std::vector<bool> used(static_cast<size_t>(list.count), false);
    int matched = 0;
    for (const cpu::sift::Extremum& e : extrema) {
      bool found = false;
      for (int i = 0; i < list.count; ++i) {
        const float* p = &points[4 * static_cast<size_t>(i)];
        const float* w = &where[4 * static_cast<size_t>(i)];
        if (static_cast<int>(w[0]) != e.k || static_cast<int>(w[1]) != e.layer ||
            std::abs(p[0] - e.x) > 1e-4 || std::abs(p[1] - e.y) > 1e-4)
          continue;
        used[static_cast<size_t>(i)] = true;
        const bool close = std::abs(p[2] - e.sigma) <= 1e-5 * e.sigma &&
                           std::abs(p[3] - e.value) <= 1e-5 * std::abs(e.value) &&
                           std::abs(w[2] - e.scale_offset) <= 1e-4 && w[3] == 0.0f;
        found = found || close;
        CHECK_MESSAGE(close, "extremum at (" << e.x << ", " << e.y << ") k " << e.k << ": sigma " << p[2]
                                             << " / " << e.sigma << ", D^ " << p[3] << " / " << e.value
                                             << ", offset_s " << w[2] << " / " << e.scale_offset);
      }
      if (found) ++matched;
    }
    MESSAGE(extrema.size() << " CPU extrema, " << list.count << " list entries ("
                           << gpu.duplicates_last_frame() << " copies), " << matched << " matched");
    CHECK(matched >= static_cast<int>(0.99 * extrema.size()));
    CHECK(std::count(used.begin(), used.end(), false) <= static_cast<long>(0.01 * list.count));
  }

  TEST_CASE("sift max_features keeps the CPU reference's N strongest") {
    test::headless_context();
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box_in_scene.png");
    for (const int n : {1, 50, 300}) {
      SiftConfig config;
      config.max_features = n;
      sift::GpuSift gpu(test::headless_context(), config);
      const std::vector<KeyPoint> g = gpu.detect(image);
      const std::vector<KeyPoint> cpu = cpu::sift::detect(image, config);
      CAPTURE(n);
      CHECK(static_cast<int>(g.size()) == n);
      CHECK(cpu.size() == g.size());
      CHECK(partnered(cpu, g) >= 0.99);
      CHECK(partnered(g, cpu) >= 0.99);
      CHECK(gpu.point_list().count < static_cast<int>(cpu::sift::detect(image, SiftConfig{}).size()));
    }
  }
}  // TEST_SUITE

TEST_SUITE("gl") {
  TEST_CASE("sift early-Z marks exactly the cells with an extremum of the GPU's own DoG") {
    // The mark pass's test is exact (strict comparisons on the DoG it reads),
    // so against the same test on the CPU over the downloaded DoG atlas no
    // cell may differ.
    test::headless_context();
    const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    SiftConfig two;
    two.n_octave_layers = 2;
    SiftConfig five;
    five.n_octave_layers = 5;
    five.contrast_threshold = 0.01f;
    for (const SiftConfig& config : {SiftConfig{}, two, five}) {
      CAPTURE(config.n_octave_layers);
      const GrayImage image = crop(graf, 250, 180, 211, 163);
      sift::GpuSift gpu(test::headless_context(), config);
      gpu.runner().set_check_every_pass(true);
      gpu.detect(image);
      const std::vector<float> dog = gpu.dog().download_f32();
      const sift::AtlasLayout& dogs = gpu.dog_layout();
      const sift::ExtremaStage& extrema = gpu.extrema();
      const std::vector<float> marks = extrema.marks().download_f32();
      const sift::AtlasLayout& cells = extrema.layout();
      const int s = config.n_octave_layers;
      const float threshold = static_cast<float>(0.5 * config.contrast_threshold / s);
      std::vector<float> expected(marks.size(), 1.0f);
      for (size_t k = 0; k < gpu.octaves().size(); ++k) {
        const int o = static_cast<int>(k);
        const int w = gpu.octaves()[k].width, h = gpu.octaves()[k].height;
        auto d = [&](int layer, int x, int y) {
          const glm::ivec4 r = dogs.rect(o, layer);
          return dog[static_cast<size_t>(r.y + y) * dogs.size.x + r.x + x];
        };
        for (int layer = 1; layer <= s; ++layer) {
          for (int y = cpu::sift::kBorder; y < h - cpu::sift::kBorder; ++y) {
            for (int x = cpu::sift::kBorder; x < w - cpu::sift::kBorder; ++x) {
              const float v = d(layer, x, y);
              if (!(std::abs(v) > threshold)) continue;
              bool above = true, below = true;
              for (int l = layer - 1; l <= layer + 1; ++l)
                for (int dy = -1; dy <= 1; ++dy)
                  for (int dx = -1; dx <= 1; ++dx) {
                    if (l == layer && dx == 0 && dy == 0) continue;
                    above = above && v > d(l, x + dx, y + dy);
                    below = below && v < d(l, x + dx, y + dy);
                  }
              if (!above && !below) continue;
              const int map = 2 * ((layer - 1) / 2) + (above ? 0 : 1);
              const glm::ivec4 r = cells.rect(o, map);
              expected[static_cast<size_t>(r.y + y / 2) * cells.size.x + r.x + x / 2] = 0.0f;
            }
          }
        }
      }
      long differ = 0, marked = 0;
      for (size_t i = 0; i < marks.size(); ++i) {
        differ += marks[i] != expected[i];
        marked += expected[i] == 0.0f;
      }
      MESSAGE(s << " layers: " << marked << " cells marked, " << differ << " differ");
      CHECK(marked > 50);
      CHECK(differ == 0);
    }
  }
}  // TEST_SUITE

TEST_SUITE("gl") {
  TEST_CASE("sift detector: sizes it refuses, and stages reused across images and sizes") {
    test::headless_context();
    SiftConfig bad;
    bad.n_octave_layers = 0;
    CHECK_THROWS_AS(sift::GpuSift(test::headless_context(), bad), Error);
    SiftConfig many;
    many.max_features = (1 << 20) + 1;
    CHECK_THROWS_AS(sift::GpuSift(test::headless_context(), many), Error);
    sift::GpuSift gpu(test::headless_context(), SiftConfig{});
    gpu.runner().set_check_every_pass(true);
    CHECK(gpu.size_problem(1, 1) != "");  // no octave
    CHECK(gpu.size_problem(0, 5) != "");
    CHECK(gpu.size_problem(1 << 20, 64) != "");  // wider than any texture
    CHECK(gpu.size_problem(324, 223) == "");
    CHECK_THROWS_AS(gpu.detect(GrayImage(1, 1)), Error);
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    const GrayImage other = crop(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), 10, 20, 200, 150);
    const std::vector<KeyPoint> first = gpu.detect(box);
    const std::vector<KeyPoint> noise =
        gpu.detect(test::random_image(box.width, box.height, 4));  // same size
    const std::vector<KeyPoint> smaller = gpu.detect(other);       // another size
    const std::vector<KeyPoint> again = gpu.detect(box);
    CHECK(first.size() > 100);
    CHECK(test::same_keypoints(first, again));
    CHECK(partnered(smaller, cpu::sift::detect(other, SiftConfig{})) >= 0.99);
    CHECK(partnered(noise, cpu::sift::detect(test::random_image(box.width, box.height, 4), SiftConfig{})) >=
          0.99);
    // A blank image has no extrema.
    CHECK(gpu.detect(GrayImage(box.width, box.height, 128)).empty());
    CHECK(gpu.point_list().count == 0);
  }
}  // TEST_SUITE
