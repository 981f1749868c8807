// GPU integral image against the CPU reference, bit for bit, on llvmpipe
// through EGL. Tolerance: none — both are exact wrap-around uint32 sums.
//
// Each case first fills the output texture with a sentinel (0xDEADBEEF) and
// counts the draws, so a GPU path that did nothing cannot pass.
#include <doctest/doctest.h>

#include <climits>
#include <type_traits>

#include "baseline/integral_2d.hpp"
#include "gl/error.hpp"
#include "gl/pass.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/integral.hpp"

using namespace glsurf;

namespace {

using baseline::Integral2DConfig;
using baseline::Integral2DStage;

// The two methods: the production stage (1-D) and the 2-D baseline, which
// the tests below check alike, through their common interface.
const char* method_name(const Integral2DStage&) { return "2-D (Terriberry)"; }
const char* method_name(const IntegralStage&) { return "1-D (rows, columns)"; }

// Calls check(stage, name) with a stage of each method (`top_pixels` for
// the 2-D one; `radix` for both).
template <class Check>
void for_both_methods(int top_pixels, int radix, Check check) {
  const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
  {  // one stage at a time (a large image's take much memory on llvmpipe)
    Integral2DStage two_d(shaders, {top_pixels, radix});
    check(two_d, method_name(two_d));
  }
  IntegralStage one_d(shaders, {radix});
  check(one_d, method_name(one_d));
}

// Runs the stage (IntegralStage or Integral2DStage) on `image` and returns
// the downloaded integral texture.
template <class Stage>
std::vector<std::uint32_t> gpu_integral(Stage& stage, gl::PassRunner& runner, const GrayImage& image) {
  gl::Texture texture(image.width, image.height, gl::Format::R8, "image");
  texture.upload(image.pixels.data());
  stage.configure(image.width, image.height);
  const gl::Texture& result = stage.result();
  // Four columns to a texel (integral.hpp).
  REQUIRE(result.width() == (image.width + 4) / 4);
  REQUIRE(result.height() == image.height + 1);
  REQUIRE(result.format() == gl::Format::RGBA32UI);
  const std::vector<std::uint32_t> sentinel(4 * static_cast<size_t>(result.width()) * result.height(),
                                            0xDEADBEEFu);
  const_cast<gl::Texture&>(result).upload(sentinel.data());

  const std::uint64_t before = runner.passes_run();
  const gl::Texture& out = stage.run(runner, texture);
  CHECK(&out == &stage.result());
  CHECK(runner.passes_run() - before == static_cast<std::uint64_t>(stage.passes_per_run()));
  // Columns past W repeat column W, the row's total.
  const std::vector<std::uint32_t> texels = out.download_u32();
  const size_t stride = 4 * static_cast<size_t>(out.width());
  size_t padding_wrong = 0;
  for (size_t y = 0; y < static_cast<size_t>(out.height()); ++y) {
    for (size_t x = static_cast<size_t>(image.width) + 1; x < stride; ++x) {
      padding_wrong += texels[y * stride + x] != texels[y * stride + static_cast<size_t>(image.width)];
    }
  }
  CHECK(padding_wrong == 0);
  return stage.download_sums();
}

struct Size {
  int w, h;
};

// 22 sizes from 1x1 to 2048x2048: degenerate rows and columns, odd and prime
// sides, powers of two and the camera sizes.
const Size kSizes[] = {{1, 1},       {1, 2},      {2, 1},       {2, 2},      {3, 3},     {1, 97},
                       {97, 1},      {5, 7},      {13, 11},     {31, 17},    {64, 64},   {100, 1},
                       {1, 300},     {127, 129},  {257, 255},   {320, 240},  {641, 479}, {1000, 3},
                       {1021, 1031}, {1024, 768}, {1920, 1080}, {2048, 2048}};

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("GPU integral equals the CPU reference exactly on random images") {
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    Integral2DStage two_d(shaders, {8192});
    IntegralStage one_d(shaders);
    unsigned seed = 1;
    for (const Size s : kSizes) {
      const GrayImage image = test::random_image(s.w, s.h, seed++);
      const cpu::IntegralImage reference = cpu::integral_image(image);
      INFO("size " << s.w << "x" << s.h);
      CHECK(test::first_difference(gpu_integral(two_d, runner, image), reference) == "");
      CHECK(test::first_difference(gpu_integral(one_d, runner, image), reference) == "");
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("the default integral stage runs the 1-D scans, exactly") {
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    IntegralStage stage(shaders);
    // The 1-D method's draws (integral.hpp): a radix-4 scan of n > 1 entries
    // takes 2 ceil(log_4 n) - 1, one scan along the rows (n = W) and one along
    // the columns (n = H). The 2-D method takes 55 or more at these sizes.
    const auto scan_draws = [](int n) {
      int levels = 0;
      for (long long reach = 1; reach < n; reach *= 4) ++levels;
      return 2 * levels - 1;
    };
    unsigned seed = 300;
    for (const Size s : {Size{640, 480}, Size{1024, 768}, Size{768, 1024}, Size{1280, 720}}) {
      const GrayImage image = test::random_image(s.w, s.h, seed++);
      INFO("size " << s.w << "x" << s.h);
      CHECK(test::first_difference(gpu_integral(stage, runner, image), cpu::integral_image(image)) == "");
      CHECK(stage.passes_per_run() == scan_draws(s.w) + scan_draws(s.h));
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("2-D integral is exact whatever the switch-over threshold T0") {
    // T0 = 0 recurses to a 1x1 top; a huge T0 does everything by eq. 13.
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    for (const int t0 : {0, 1, 64, 1000, 1 << 30}) {
      Integral2DStage stage(shaders, {t0});
      unsigned seed = 100;
      for (const Size s :
           {Size{1, 1}, Size{2, 3}, Size{1, 50}, Size{50, 1}, Size{33, 65}, Size{100, 37}, Size{255, 257}}) {
        const GrayImage image = test::random_image(s.w, s.h, seed++);
        INFO("T0 " << t0 << ", size " << s.w << "x" << s.h);
        CHECK(test::first_difference(gpu_integral(stage, runner, image), cpu::integral_image(image)) == "");
      }
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("2-D integral is exact with T0 at, just below and just above a level's texel count") {
    // 65 x 33 halves to 33 x 17 (561 texels) and 17 x 9 (153): T0 = 561 stops
    // at the first half, 560 goes one level further; likewise at the image
    // itself (2145).
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const GrayImage image = test::random_image(65, 33, 7);
    const cpu::IntegralImage reference = cpu::integral_image(image);
    int previous_passes = -1, previous_levels = -1;
    for (const int t0 : {2146, 2145, 2144, 562, 561, 560, 153, 152}) {
      Integral2DStage stage(gl::ShaderSource::from_environment(), {t0});
      INFO("T0 " << t0 << ", " << stage.passes_per_run() << " passes");
      CHECK(test::first_difference(gpu_integral(stage, runner, image), reference) == "");
      // The levels above the top: a step past a level's count adds passes.
      const int levels = t0 >= 2145 ? 0 : t0 >= 561 ? 1 : t0 >= 153 ? 2 : 3;
      if (levels == previous_levels)
        CHECK(stage.passes_per_run() == previous_passes);
      else
        CHECK(stage.passes_per_run() > previous_passes);
      previous_passes = stage.passes_per_run();
      previous_levels = levels;
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("both integral methods are exact at the widest and tallest images the driver allows") {
    // The integral is one texel larger than the image each way and the
    // descriptors' quads one more: sides up to GL_MAX_TEXTURE_SIZE - 2.
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const int side = test::headless_context().info().max_texture_size - 2;
    CHECK(integral_size_problem(side, 3).empty());
    CHECK(!integral_size_problem(side + 1, 3).empty());
    for_both_methods(8192, 4, [&](auto& stage, const char* method) {
      for (const Size s : {Size{side, 3}, Size{3, side}}) {
        const GrayImage image = test::random_image(s.w, s.h, 11);
        INFO(method << ", size " << s.w << "x" << s.h);
        CHECK(test::first_difference(gpu_integral(stage, runner, image), cpu::integral_image(image)) == "");
      }
    });
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("both integral methods are exact whatever the scan radix, at the radix's group boundaries") {
    // Lengths of r - 1, r, r + 1, r^2 and r^2 + 1 along an axis put the last
    // entry (the total) at a group's end, past it, and one level up; the 2-D
    // method (T0 = 0: it recurses to 1 x 1) scans its levels' half-sums, whose
    // lengths are halved, so twice those lengths reach the same boundaries there.
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    unsigned seed = 200;
    // 2, 3 and 4 read each group's own prefixes in the down-sweep (4 uses all
    // three), the larger radices sum the entries again.
    for (const int r : {2, 3, 4, 5, 16, 64}) {
      for_both_methods(0, r, [&](auto& stage, const char* method) {
        const int k = std::is_same_v<std::decay_t<decltype(stage)>, Integral2DStage> ? 2 : 1;
        for (const Size s : {Size{k * r, k * r}, Size{k * (r - 1), k * (r + 1)}, Size{k * r * r, 3},
                             Size{3, k * r * r + k}, Size{k * r * r + k, k * (r + 1)}, Size{97, 61}}) {
          const GrayImage image = test::random_image(s.w, s.h, seed++);
          INFO("radix " << r << ", " << method << ", size " << s.w << "x" << s.h);
          CHECK(test::first_difference(gpu_integral(stage, runner, image), cpu::integral_image(image)) == "");
        }
      });
    }
    // A scan of n > 1 entries takes ceil(log_r n) - 1 up-sweep draws and one
    // more down-sweep draw: 640 -> 160 -> 40 -> 10 -> 3 and 480 -> 120 -> 30
    // -> 8 -> 2 at radix 4 are 4 + 5 draws per axis.
    IntegralStage one_d(shaders, {4});
    one_d.configure(640, 480);
    CHECK(one_d.passes_per_run() == 18);
    CHECK_THROWS_AS(IntegralStage(shaders, {1}), std::logic_error);
    CHECK_THROWS_AS(IntegralStage(shaders, {65}), std::logic_error);
    CHECK_THROWS_AS(Integral2DStage(shaders, {8192, 1}), std::logic_error);
    CHECK_THROWS_AS(Integral2DStage(shaders, {-1, 4}), std::logic_error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("the 1-D method gives the same exact sums from the image packed four pixels to a texel") {
    // As the detector runs it (integral.hpp, upload_packed_image): widths that
    // are and are not multiples of 4 (padded rows), every radix, so that the
    // radix-4 first pass's one look-up per group and the general one per
    // pixel are both checked.
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    unsigned seed = 400;
    std::vector<std::uint8_t> scratch;
    for (const int r : {2, 3, 4, 5, 16}) {
      IntegralStage stage(shaders, {r});
      for (const Size s : {Size{1, 1}, Size{3, 2}, Size{4, 5}, Size{5, 4}, Size{97, 61}, Size{640, 480},
                           Size{641, 3}, Size{1021, 31}}) {
        const GrayImage image = test::random_image(s.w, s.h, seed++);
        INFO("radix " << r << ", size " << s.w << "x" << s.h);
        gl::Texture packed(packed_image_width(s.w), s.h, gl::Format::RGBA8, "image_packed");
        upload_packed_image(packed, image, scratch);
        stage.configure(s.w, s.h);
        stage.run(runner, packed);
        CHECK(test::first_difference(stage.download_sums(), cpu::integral_image(image)) == "");
      }
    }
    // The 2-D method takes the R8 image only.
    Integral2DStage two_d(shaders, {8192});
    two_d.configure(8, 8);
    gl::Texture packed(packed_image_width(8), 8, gl::Format::RGBA8, "image_packed");
    CHECK_THROWS_AS(two_d.run(runner, packed), std::logic_error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("GPU integral of a real photograph is exact, and the stage is reusable frame after frame") {
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const GrayImage photo = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    const cpu::IntegralImage reference = cpu::integral_image(photo);
    IntegralStage stage(gl::ShaderSource::from_environment());
    gl::Texture texture(photo.width, photo.height, gl::Format::R8, "image");
    stage.configure(photo.width, photo.height);
    for (int frame = 0; frame < 3; ++frame) {
      // Alternate with another image of the same size so stale results would show.
      const GrayImage& input = frame == 1 ? test::random_image(photo.width, photo.height, 9) : photo;
      texture.upload(input.pixels.data());
      stage.run(runner, texture);
      const auto gpu = stage.download_sums();
      CHECK(test::first_difference(gpu, frame == 1 ? cpu::integral_image(input) : reference) == "");
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("all-255 images of 4096x4096 and 4112x4112: exact tables, exact large box sums") {
    // 4096^2 * 255 = 4,278,190,080 just fits below 2^32; 4112^2 * 255 =
    // 4,311,678,720 does not, so its bottom-right corner entries wrap. Box sums of
    // up to 16,843,009 pixels stay exact either way.
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const gl::ShaderSource shaders = gl::ShaderSource::from_environment();
    for (const int n : {4096, 4112}) {
      const GrayImage image(n, n, 255);
      const cpu::IntegralImage reference = cpu::integral_image(image);
      for_both_methods(8192, 4, [&](auto& stage, const char* method) {
        INFO(n << "x" << n << " " << method);
        cpu::IntegralImage gpu;
        gpu.width = gpu.height = n;
        gpu.sums = gpu_integral(stage, runner, image);
        CHECK(test::first_difference(gpu.sums, reference) == "");
        const std::uint64_t corner = std::uint64_t(n) * n * 255;
        CHECK(gpu.at(n, n) == static_cast<std::uint32_t>(corner));
        struct Box {
          int x0, y0, x1, y1;
        };
        for (const Box b : {Box{0, 0, 4096, 4096}, Box{100, 50, n, n}, Box{n - 4000, 1, n, n - 12},
                            Box{0, n - 3, n, n}, Box{17, 0, 18, n}}) {
          const std::uint64_t expected = std::uint64_t(b.x1 - b.x0) * (b.y1 - b.y0) * 255;
          REQUIRE(expected < (std::uint64_t(1) << 32));
          CHECK(gpu.box_sum(b.x0, b.y0, b.x1, b.y1) == expected);
        }
      });
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("the result is the same texture every frame, and fresh, at every size") {
    // Sizes below T0 end in the doubling ping-pong, with odd and even step counts.
    test::headless_context();
    gl::PassRunner runner;
    for_both_methods(8192, 4, [&](auto& stage, const char* method) {
      for (const Size s :
           {Size{1, 1}, Size{2, 2}, Size{5, 5}, Size{6, 6}, Size{9, 9}, Size{90, 90}, Size{200, 100}}) {
        stage.configure(s.w, s.h);
        const gl::Texture& result = stage.result();
        gl::Texture texture(s.w, s.h, gl::Format::R8, "image");
        for (unsigned frame = 0; frame < 3; ++frame) {
          const GrayImage image = test::random_image(s.w, s.h, 1000 + frame);
          texture.upload(image.pixels.data());
          const gl::Texture& out = stage.run(runner, texture);
          INFO(method << " " << s.w << "x" << s.h << " frame " << frame);
          CHECK(&out == &result);
          CHECK(test::first_difference(stage.download_sums(), cpu::integral_image(image)) == "");
        }
      }
    });
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("configure and run refuse wrong inputs") {
    test::headless_context();
    gl::PassRunner runner;
    for_both_methods(8192, 4, [&](auto& stage, const char* method) {
      INFO(method);
      gl::Texture texture(8, 8, gl::Format::R8, "image");
      CHECK_THROWS_AS(stage.run(runner, texture), std::logic_error);  // not configured
      CHECK_THROWS_AS(stage.passes_per_run(), std::logic_error);
      CHECK_THROWS_AS(stage.result(), std::logic_error);
      stage.configure(8, 9);
      CHECK_THROWS_AS(stage.run(runner, texture), std::logic_error);  // wrong size
      CHECK_THROWS_AS(stage.configure(0, 5), std::logic_error);
      // The integral image is one texel larger than the image on each side, and
      // the descriptors' quads copy of it one more (surf/descriptor.hpp).
      const int max = test::headless_context().info().max_texture_size;
      CHECK_THROWS_WITH_AS(stage.configure(max, 1), doctest::Contains("is too large"), Error);
      CHECK_THROWS_WITH_AS(stage.configure(max - 1, 1), doctest::Contains("is too large"), Error);
      // The border is added without int overflow (undefined behaviour).
      CHECK_THROWS_WITH_AS(stage.configure(INT_MAX, 1), doctest::Contains("needs 2147483649x3 texels"),
                           Error);
      CHECK(stage.width() == 8);  // a failed configure leaves the stage as it was
      CHECK(stage.passes_per_run() > 0);
    });
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE

TEST_SUITE("window") {
  TEST_CASE("GLFW window context runs the same integral exactly") {
    if (!std::getenv("DISPLAY")) {
      MESSAGE("skipped: no DISPLAY (run under xvfb-run -a)");
      return;
    }
    gl::Context window = gl::Context::window(64, 64, "glsurf test", false);
    CHECK(window.path() == gl::ContextPath::Glfw);
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    const GrayImage image = test::random_image(333, 251, 77);
    for_both_methods(8192, 4, [&](auto& stage, const char* method) {
      INFO(method);
      CHECK(test::first_difference(gpu_integral(stage, runner, image), cpu::integral_image(image)) == "");
    });
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE
