// ExtremaStage: the early-Z non-maximum suppression's marks, and the
// keypoints found through them at every layer count.
//
// Tolerances: the marks are checked against marks computed on the CPU from
// the GPU's own det(H) (max is exact), so they must agree to the sample: no
// cell differs. Against the CPU reference detector, for 1 to 5 layers per
// octave with the early-Z suppression and the single-pass baseline in its
// place, on noise at threshold 0: counts within 2 (layers two apart can both
// hold a maximum at the same sample, about 1 % of the keypoints, so counts
// agree to within float near-ties, not to 1 %), and at least 99.8 % of the
// keypoints of either side have a partner within 0.1 px and 1 % in size,
// with the same Laplacian sign.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "baseline/detector_variant.hpp"
#include "cpu/detector.hpp"
#include "detector_support.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "surf/extrema.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"
#include "surf/keypoint.hpp"

using namespace glsurf;
using test::matched_fraction;

TEST_SUITE("gl") {
  TEST_CASE("every layer count finds the CPU's keypoints: no layer hides another's") {
    // Layers two apart can both hold a maximum at the same sample; with noise
    // and threshold 0 that happens for about 1 % of the keypoints, so the counts
    // must agree to within float near-ties (2), not to 1 %.
    test::headless_context();
    const GrayImage image = test::random_image(400, 300, 17);
    for (const int layers : {1, 2, 3, 4, 5}) {
      for (const baseline::Suppression nms :
           {baseline::Suppression::EarlyZ, baseline::Suppression::SinglePass}) {
        DetectorConfig config;
        config.n_octave_layers = layers;
        config.n_octaves = 3;
        config.hessian_threshold = 0;
        const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
        // Early-Z: the production detector; single-pass: the baseline in its place.
        std::unique_ptr<DetectorSteps> steps;
        if (nms == baseline::Suppression::SinglePass)
          steps = std::make_unique<baseline::VariantSteps>(shaders, baseline::Hessian::MultiPass, nms);
        GpuDetector detector(test::headless_context(), config, shaders, std::move(steps));
        detector.runner().set_check_every_pass(true);
        const std::vector<KeyPoint> gpu = detector.detect(image);
        const std::vector<KeyPoint> cpu = cpu::detect(image, config);
        INFO(layers << " layers, "
                    << std::string(nms == baseline::Suppression::EarlyZ ? "early-Z" : "single-pass")
                    << " NMS: CPU " << cpu.size() << ", GPU " << gpu.size());
        REQUIRE(cpu.size() > 1000);
        CHECK(std::abs(static_cast<long>(gpu.size()) - static_cast<long>(cpu.size())) <= 2);
        CHECK(matched_fraction(cpu, gpu) >= 0.998);
        CHECK(matched_fraction(gpu, cpu) >= 0.998);
      }
    }
  }

  TEST_CASE(
      "early-Z marks exactly the cells with a sample that passes the 3x3x3 test, computed here from the "
      "GPU's det(H)") {
    // The marks only decide where the exact test runs, so a mark pass that
    // let everything through would still find every keypoint; this checks the
    // marks themselves. Expected marks are computed on the CPU from the GPU's
    // own det(H) (max is exact), so they must agree to the sample: det >
    // threshold, >= the 3x3 maximum of its layer, > those of the layers below
    // and above (edges clamped), block inside the image; a map's cell of
    // 2 x 2 samples is marked if one of them passes in either layer. 2 layers per octave mark in pairs
    // from det(H) directly (nms_mark_pair.frag; from its buffer copy, and
    // once more from the 2-D texture as for an image too large for buffer
    // textures), 3 and 4 layer by layer in part.
    test::headless_context();
    const GrayImage photo = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    // Noise of odd sides too, sampled every 3 pixels: grids of odd sides,
    // whose last cells have samples past the grid (which must never pass).
    const GrayImage noise = test::random_image(333, 217, 23);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    struct Case {
      int layers, buffer_limit;  // buffer_limit 0: det(H) read 2-D
      bool odd;                  // the noise, first step 3
    };
    for (const Case c : {Case{2, -1, false}, Case{2, 0, false}, Case{3, -1, false}, Case{4, -1, false},
                         Case{2, -1, true}, Case{3, 0, true}}) {
      const int layers = c.layers;
      const GrayImage& image = c.odd ? noise : photo;
      INFO(layers << " layers, buffer limit " << c.buffer_limit << (c.odd ? ", odd noise" : ", graf1"));
      DetectorConfig config;
      config.n_octave_layers = layers;
      config.hessian_threshold = 20;
      if (c.odd) {
        config.first_step = 3;
        config.hessian_threshold = 0;
      }
      gl::PassRunner runner;
      runner.set_check_every_pass(true);
      gl::Texture texture(image.width, image.height, gl::Format::R8, "image");
      texture.upload(image.pixels.data());
      IntegralStage integral(shaders);
      integral.configure(image.width, image.height);
      HessianStage hessian(shaders, config);
      hessian.configure(image.width, image.height);
      integral.run(runner, texture);
      hessian.run(runner, integral);
      ExtremaStage extrema(shaders, config);
      if (c.buffer_limit >= 0) extrema.limit_buffer_texels(c.buffer_limit);
      extrema.configure(hessian, image.width, image.height);
      extrema.run(runner, hessian);
      const std::vector<float> marks = extrema.marks().download_f32();
      const int atlas_w = extrema.marks().width();
      long expected_total = 0, differ = 0;
      for (const AtlasRect& r : extrema.rects()) {
        const HessianOctave& oct = hessian.octaves()[static_cast<size_t>(r.octave)];
        std::vector<std::vector<float>> det;
        for (const gl::Texture& t : oct.det) det.push_back(t.download_f32());
        const int w = oct.grid.x, h = oct.grid.y;
        auto at = [&](int l, int x, int y) {
          x = std::clamp(x, 0, w - 1), y = std::clamp(y, 0, h - 1);
          return det[static_cast<size_t>(l / 4)][4 * (static_cast<size_t>(y) * w + x) + l % 4];
        };
        auto max3 = [&](int l, int x, int y) {
          float m = at(l, x, y);
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) m = std::max(m, at(l, x + dx, y + dy));
          return m;
        };
        const int last = std::min(r.first_layer + 1, layers);
        std::vector<char> cell_expected(static_cast<size_t>(r.width) * r.height, 0);
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            bool expected = false;
            for (int l = r.first_layer; l <= last; ++l) {
              const int half = filter_size(r.octave, l + 1) / 2;
              const bool inside = (x - 1) * oct.step >= half && (y - 1) * oct.step >= half &&
                                  (x + 1) * oct.step + half <= image.width - 1 &&
                                  (y + 1) * oct.step + half <= image.height - 1;
              const float v = at(l, x, y);
              expected = expected || (inside && v > config.hessian_threshold && v >= max3(l, x, y) &&
                                      v > max3(l - 1, x, y) && v > max3(l + 1, x, y));
            }
            expected_total += expected;
            if (expected) cell_expected[static_cast<size_t>(y / 2) * r.width + x / 2] = 1;
          }
        }
        // A cell (2 x 2 samples) is marked when any of its samples passes.
        REQUIRE(r.width == (w + 1) / 2);
        REQUIRE(r.height == (h + 1) / 2);
        for (int cy = 0; cy < r.height; ++cy) {
          for (int cx = 0; cx < r.width; ++cx) {
            const bool marked = marks[static_cast<size_t>(r.y + cy) * atlas_w + r.x + cx] == 0.0f;
            differ += (cell_expected[static_cast<size_t>(cy) * r.width + cx] != 0) != marked;
          }
        }
      }
      INFO(layers << " layers: " << expected_total << " samples pass, " << differ << " cells differ");
      CHECK(expected_total > (c.odd ? 100 : 1000));
      CHECK(differ == 0);
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE
