// SelectStage: the radix selection of the N strongest keypoints on the GPU
// (max_features, and the 65,536 strongest when there are more candidates
// than the point list holds), with exact ties at the N-th strongest.
//
// Tolerances: exactly N keypoints (65,536 when the list overflows), of which
// at least 99 % have a CPU partner (from the CPU reference's N strongest)
// within 0.1 px and 1 % in size with the same Laplacian sign, and the other
// way round where checked; the strongest response, and with exact ties every
// response in order, within a relative 1e-5 of the CPU's. With max_features
// at or above the number of keypoints: the very keypoints of an unlimited
// detector, in the same order; one fewer drops exactly the weakest. With the
// ties, the list's entries counted clear of the border come first and are
// all clear of it (at least 64, no more than the keypoints stronger than the
// ties).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "detector_support.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "surf/keypoint.hpp"

using namespace glsurf;
using test::matched_fraction;

TEST_SUITE("gl") {
  TEST_CASE("max_features keeps the N strongest, as the CPU reference does") {
    test::headless_context();
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
    for (const int n : {1, 100, 1000}) {
      DetectorConfig config;
      config.max_features = n;
      GpuDetector detector(test::headless_context(), config);
      const std::vector<KeyPoint> gpu = detector.detect(image);
      const std::vector<KeyPoint> cpu = cpu::detect(image, config);
      REQUIRE(static_cast<int>(gpu.size()) == n);
      REQUIRE(static_cast<int>(cpu.size()) == n);
      INFO("N = " << n);
      // Chosen on the GPU: only the N strongest were compacted and read back.
      CHECK(detector.candidates_last_frame() == n);
      CHECK(matched_fraction(cpu, gpu) >= 0.99);
      CHECK(gpu.front().response == doctest::Approx(cpu.front().response).epsilon(1e-5));
    }
  }

  TEST_CASE("max_features at or above the number of keypoints keeps them all") {
    const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    GpuDetector all(test::headless_context(), DetectorConfig{});
    const std::vector<KeyPoint> every = all.detect(image);
    REQUIRE(every.size() > 100);
    const int count = static_cast<int>(every.size());
    for (const int n : {count, count + 1, 10 * count}) {
      DetectorConfig config;
      config.max_features = n;
      GpuDetector detector(test::headless_context(), config);
      const std::vector<KeyPoint> gpu = detector.detect(image);
      INFO("max_features " << n << " of " << count);
      CHECK(test::same_keypoints(gpu, every));
      CHECK(detector.candidates_last_frame() == count);
    }
    // One fewer drops the weakest (no two share its response here).
    REQUIRE(every[every.size() - 2].response > every.back().response);
    DetectorConfig one_less;
    one_less.max_features = count - 1;
    CHECK(test::same_keypoints(GpuDetector(test::headless_context(), one_less).detect(image),
                               std::vector<KeyPoint>(every.begin(), every.end() - 1)));
  }

  TEST_CASE("more candidates than the list holds: the 65,536 strongest are kept") {
    // Noise with threshold 0 gives about 2.4 % of the pixels as keypoints:
    // some 78,000 at 1800 x 1800.
    const GrayImage image = test::random_image(1800, 1800, 42);
    DetectorConfig config;
    config.hessian_threshold = 0;
    GpuDetector detector(test::headless_context(), config);
    const std::vector<KeyPoint> gpu = detector.detect(image);
    CHECK(detector.truncated_last_frame());
    REQUIRE(gpu.size() == 65536);
    std::vector<KeyPoint> cpu = cpu::detect(image, config);
    INFO("CPU " << cpu.size() << " keypoints in all");
    REQUIRE(cpu.size() > 65536);
    cpu.resize(65536);  // the CPU's strongest, same order rule
    CHECK(matched_fraction(cpu, gpu) >= 0.99);
    CHECK(matched_fraction(gpu, cpu) >= 0.99);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("more exact ties with the N-th strongest than the list holds: the stronger ones all kept") {
    // A grid of identical Gaussian blobs every 10 px: 265 x 265 = 70,225 keypoints
    // away from the border, all with exactly the same response: more than the
    // 65,536 the list holds. The 8 x 8 blobs near the bottom-right corner are
    // brighter, so they and their neighbours respond differently, most of them
    // more strongly; they lie late in the list's (Z-) order, where a list
    // filled in that order up to its capacity would have dropped them.
    GrayImage board(2700, 2700);
    for (int y = 0; y < board.height; ++y)
      for (int x = 0; x < board.width; ++x) {
        const double dx = x % 10 - 4.5, dy = y % 10 - 4.5;
        const bool bright = x / 10 >= 250 && x / 10 < 258 && y / 10 >= 250 && y / 10 < 258;
        board.at(x, y) = static_cast<std::uint8_t>(40 + (bright ? 215 : 150) *
                                                            std::exp(-(dx * dx + dy * dy) / (2 * 1.5 * 1.5)));
      }
    const auto check_strongest = [&](int max_features) {
      DetectorConfig config;
      config.max_features = max_features;
      GpuDetector detector(test::headless_context(), config);
      const std::vector<KeyPoint> gpu = detector.detect(board);
      CHECK(detector.candidates_last_frame() > 65536);  // the ties did overflow the list
      // The list's first inside_last_frame() entries are clear of the border,
      // and all of the stronger part, listed first: the ties, listed after
      // it and partitioned on their own, are clear of the border too, but
      // come after the stronger part's others.
      const std::vector<float> list = detector.last_on_gpu().list->download_f32();
      const int inside = detector.inside_last_frame();
      int clear = 0, above = 0;
      for (int i = 0; i < detector.last_on_gpu().count; ++i) {
        KeyPoint k;
        k.x = list[4 * static_cast<size_t>(i)], k.y = list[4 * static_cast<size_t>(i) + 1];
        k.size = std::abs(list[4 * static_cast<size_t>(i) + 2]);
        clear += i < inside && cpu::orientation_inside(k, board.width, board.height);
        above += list[4 * static_cast<size_t>(i) + 3] > gpu.back().response;
      }
      INFO(inside << " listed first as clear of the border, " << above << " stronger than the ties");
      CHECK(clear == inside);
      CHECK(inside >= 64);
      CHECK(inside <= above);
      std::vector<KeyPoint> cpu = cpu::detect(board, config);
      const size_t n = max_features > 0 ? static_cast<size_t>(max_features) : 65536;
      REQUIRE(cpu.size() >= n);
      cpu.resize(n);
      REQUIRE(gpu.size() == n);
      const float tie = cpu.back().response;
      const auto stronger = std::count_if(cpu.begin(), cpu.end(),
                                          [&](const KeyPoint& k) { return k.response > tie * (1 + 1e-5f); });
      INFO("max_features " << max_features << ": " << stronger << " keypoints stronger than the ties at "
                           << tie);
      CHECK(stronger >= 64);
      for (size_t i = 0; i < n; ++i) {
        INFO("keypoint " << i);
        if (gpu[i].response != doctest::Approx(cpu[i].response).epsilon(1e-5)) {
          CHECK(gpu[i].response == doctest::Approx(cpu[i].response).epsilon(1e-5));  // only the first report
          break;
        }
      }
      CHECK_NOTHROW(gl::check_gl_errors("end of test"));
    };
    check_strongest(1000);
    check_strongest(0);
  }

}  // TEST_SUITE
