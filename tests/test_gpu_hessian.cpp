// GPU Hessian responses against the CPU reference on a real photograph and a
// random image, every octave and layer.
//
// Tolerance: box sums are exact integers on both sides; then each side does
// the same few float32 operations, but the GPU may fuse multiply-adds and
// divide through a reciprocal. So each value may differ by a few float32
// rounding steps of the terms it is made of: |gpu - cpu| <= 1e-5 * (|Dxx Dyy|
// + w(l) Dxy^2 + 1) for det, which we bound with the magnitude of the CPU
// value's own terms, recomputed here from hessian_at.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "baseline/hessian_single.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "support.hpp"
#include "surf/hessian.hpp"
#include "surf/integral.hpp"

using namespace glsurf;

namespace {

// The production multi-pass Hessian (HessianStage) or the single-pass
// baseline, which writes into the same stage's textures.
enum class HessianMethod { MultiPass, SinglePass };

// buffer_limit >= 0 caps the multi-pass method's buffer textures (0: its 2-D inputs).
void compare_with_cpu(const GrayImage& image, const DetectorConfig& config, HessianMethod method,
                      int buffer_limit = -1) {
  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  gl::Texture texture(image.width, image.height, gl::Format::R8, "image");
  texture.upload(image.pixels.data());
  IntegralStage integral(shaders);
  integral.configure(image.width, image.height);
  HessianStage hessian(shaders, config);
  if (buffer_limit >= 0) hessian.limit_buffer_texels(buffer_limit);
  hessian.configure(image.width, image.height);
  integral.run(runner, texture);
  if (method == HessianMethod::MultiPass) {
    hessian.run(runner, integral);
  } else {
    baseline::HessianSinglePass(shaders).run(runner, integral, hessian);
  }

  const cpu::IntegralImage sums = cpu::integral_image(image);
  const int layers = config.n_octave_layers + 2;
  REQUIRE(static_cast<int>(hessian.octaves().size()) == config.n_octaves);
  for (const HessianOctave& oct : hessian.octaves()) {
    REQUIRE(oct.step == config.first_step << oct.octave);  // the reference below samples at the GPU's step
    for (int l = 0; l < layers; ++l) {
      const int group = l / 4, channel = l % 4;
      const std::vector<float> det = oct.det[group].download_f32();
      const std::vector<std::uint32_t> signs = oct.signs[group].download_u32();
      const cpu::HessianLayer ref = cpu::hessian_layer(sums, filter_size(oct.octave, l), oct.step);
      REQUIRE(ref.width == oct.grid.x);
      REQUIRE(ref.height == oct.grid.y);
      int bad = 0, valid = 0;
      for (int i = 0; i < ref.height; ++i) {
        for (int j = 0; j < ref.width; ++j) {
          const size_t k = static_cast<size_t>(i) * ref.width + j;
          const float gd = det[4 * k + channel];
          const bool negative = (signs[k] >> channel) & 1u;
          if (!ref.valid[k]) {
            bad += gd != 0.0f || negative;
            continue;
          }
          ++valid;
          const cpu::HessianResponse r = cpu::hessian_at(sums, j * oct.step, i * oct.step, ref.filter);
          const double scale =
              std::abs(r.dxx * r.dyy) + cpu::dxy_weight(ref.filter / 3) * r.dxy * r.dxy + 1.0;
          const double tscale = std::abs(r.dxx) + std::abs(r.dyy) + 1.0;
          // Only the trace's sign is kept (the Laplacian); it must be the
          // reference's wherever the trace is further from 0 than the
          // tolerance (the values themselves, float sums of the same
          // integers, agree within it).
          const bool sure = std::abs(ref.trace[k]) > 1e-5 * tscale;
          bad += std::abs(gd - ref.det[k]) > 1e-5 * scale || (sure && negative != (ref.trace[k] < 0));
        }
      }
      INFO(std::string(method == HessianMethod::MultiPass ? "multi-pass" : "single pass")
           << (buffer_limit == 0 ? " (2-D inputs)" : "") << ", octave " << oct.octave << " layer " << l
           << " (L = " << ref.filter << "): " << valid << " valid samples");
      CHECK(bad == 0);
      // A filter with room for a sample step beside it has a valid sample, so
      // the comparison above checks responses, not only zeros.
      if (ref.filter + oct.step <= std::min(image.width, image.height)) CHECK(valid > 0);
    }
  }
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
}

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("GPU Hessian (multi-pass and single pass) equals the CPU reference on a photograph") {
    test::headless_context();
    for (const HessianMethod m : {HessianMethod::MultiPass, HessianMethod::SinglePass}) {
      compare_with_cpu(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, m);
    }
    // Multi-pass with 2-D inputs (images too large for the driver's buffer textures).
    compare_with_cpu(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{}, HessianMethod::MultiPass,
                     0);
    DetectorConfig config;
    config.n_octave_layers = 3;
    compare_with_cpu(test::random_image(203, 151, 5), config, HessianMethod::MultiPass, 0);
  }

  // The multi-pass method copies layers 0 and 1 of octaves above 0 from the
  // octave below (layer 0 alone with one layer per octave, group 0 only with
  // more than two): 1, 2, 3 and 4 layers per octave cover each case.
  TEST_CASE("GPU Hessian equals the CPU reference on random images, odd sizes, 1 to 4 layers per octave") {
    test::headless_context();
    for (const HessianMethod m : {HessianMethod::MultiPass, HessianMethod::SinglePass}) {
      DetectorConfig config;
      // Odd sides make the coarser octaves' grids round down.
      config.n_octaves = 5;
      compare_with_cpu(test::random_image(211, 163, 4), config, m);
      compare_with_cpu(test::random_image(211, 163, 4), config, m, 0);
      // W + 1 not a multiple of 4: the packed integral image has padding columns.
      compare_with_cpu(test::random_image(206, 121, 9), config, m);
      compare_with_cpu(test::random_image(206, 121, 9), config, m, 0);
      config.n_octave_layers = 3;  // 5 filters: two texture groups per octave
      config.n_octaves = 3;
      compare_with_cpu(test::random_image(203, 151, 5), config, m);
      config.n_octave_layers = 1;
      config.n_octaves = 5;
      compare_with_cpu(test::random_image(97, 211, 6), config, m);
      compare_with_cpu(test::random_image(97, 211, 6), config, m, 0);
      config.n_octave_layers = 4;  // 6 filters: group 1 half used
      config.n_octaves = 3;
      compare_with_cpu(test::random_image(151, 137, 7), config, m);
    }
  }

  // A first sampling step above 1 (OpenSURF's init_sample) scales every
  // octave's grid; the copies from the octave below still pick every other
  // sample, whatever the step.
  TEST_CASE("GPU Hessian equals the CPU reference with the first octave sampled every 2 and every 3 pixels") {
    test::headless_context();
    for (const HessianMethod m : {HessianMethod::MultiPass, HessianMethod::SinglePass}) {
      DetectorConfig config;
      config.n_octaves = 4;
      for (const int first_step : {2, 3}) {
        config.first_step = first_step;
        config.n_octave_layers = 2;
        compare_with_cpu(test::random_image(211, 163, 8), config, m);
        config.n_octave_layers = 1;
        compare_with_cpu(test::random_image(211, 163, 8), config, m, 0);
      }
    }
  }

}  // TEST_SUITE
