// The whole GpuDetector: its keypoints (Hessian, extrema, interpolation,
// selection and compaction; read back from the point list) against the CPU
// reference detector on real photographs, a moved detector, refused
// configurations and images (too small, too wide for the candidate atlas,
// pixels missing), a context not current, and the host memory a software
// renderer needs. The stages have their own tests: test_gpu_extrema.cpp,
// test_gpu_select.cpp, test_gpu_compact.cpp.
//
// Criterion (issue 3): at least 99 % of CPU keypoints have a GPU keypoint
// within 0.1 px and 1 % in size, with the same Laplacian sign, and the other
// way round; counts within 1 %. Why not 100 %: det(H) differs by float
// rounding (see test_gpu_hessian.cpp), which can flip a near-tie in the
// 26-neighbour comparison or an offset within rounding of the 1-sample limit.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/detector.hpp"
#include "detector_support.hpp"
#include "gl/context.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "match/matcher.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "surf/extrema.hpp"

using namespace glsurf;
using test::matched_fraction;

namespace {

// buffer_limit >= 0 caps the stages' buffer textures (0: every input 2-D).
void compare(const GrayImage& image, const DetectorConfig& config, int buffer_limit = -1) {
  const std::vector<KeyPoint> cpu = cpu::detect(image, config);
  GpuDetector detector(test::headless_context(), config);
  detector.runner().set_check_every_pass(true);
  if (buffer_limit >= 0) detector.limit_buffer_texels(buffer_limit);
  const std::vector<KeyPoint> gpu = detector.detect(image);
  INFO("CPU " << cpu.size() << " keypoints, GPU " << gpu.size());
  REQUIRE(cpu.size() > 50);  // the comparison means something
  CHECK(std::abs(static_cast<double>(gpu.size()) - cpu.size()) <= 0.01 * cpu.size());
  CHECK(matched_fraction(cpu, gpu) >= 0.99);
  CHECK(matched_fraction(gpu, cpu) >= 0.99);
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("host memory: an image whose textures cannot fit is refused on a software renderer") {
    // 80 bytes a pixel and 220 MB (measured; see detector.hpp): 4096 x 4096
    // needs 1.56 GB, 16000 x 16000 20.70 GB.
    CHECK(host_memory_problem(4096, 4096, 8e9).empty());
    CHECK(host_memory_problem(4096, 4096, 1.55e9) != "");
    CHECK(host_memory_problem(4096, 4096, 1.57e9).empty());
    const std::string why = host_memory_problem(16000, 16000, 16e9);
    CHECK(why.find("image of 16000x16000 needs about 20.7 GB") == 0);
    CHECK(why.find("16.0 GB is available") != std::string::npos);
    CHECK(host_memory_problem(16000, 16000, -1).empty());  // unknown: no refusal
    // compute() of given keypoints: 45 bytes a pixel and 220 MB, 11.74 GB at
    // 16000 x 16000.
    CHECK(host_memory_problem(16000, 16000, 16e9, kSoftwareComputeBytesPerPixel).empty());
    CHECK(host_memory_problem(16000, 16000, 8e9, kSoftwareComputeBytesPerPixel).find("needs about 11.7 GB") !=
          std::string::npos);
    // More layers per octave: 110 bytes a pixel more for each further group of
    // four (measured; see detector.hpp).
    DetectorConfig layers;
    CHECK(software_bytes_per_pixel(layers) == kSoftwareBytesPerPixel);
    for (const auto& [n, bytes] :
         {std::pair{1, 80.0}, {2, 80.0}, {3, 190.0}, {6, 190.0}, {7, 300.0}, {10, 300.0}}) {
      layers.n_octave_layers = n;
      CHECK(software_bytes_per_pixel(layers) == bytes);
    }
    // The fixed part alone: a 64 x 64 image (1.1 MB of textures) with 100 MB left.
    CHECK(host_memory_problem(64, 64, 100e6).find("image of 64x64 needs about 0.2 GB") == 0);
    CHECK(host_memory_problem(64, 64, 250e6).empty());
  }

  TEST_CASE("host memory: larger point lists and second orientations are counted") {
    // The default configuration is what kSoftwareFixedBytes was measured with.
    CHECK(software_list_bytes(DetectorConfig{}, 65536, 65536) == 0.0);
    // A second orientation can double the descriptor entries: 65,536 more of
    // 64 float32 values, in two textures (raw sums, normalised), at least.
    DetectorConfig second;
    second.second_orientation = 0.8f;
    const double more = software_list_bytes(second, 65536, 65536);
    CHECK(more >= 65536.0 * 64 * 4 * 2);
    // 1.56 GB for the default at 4096 x 4096 (above): 1.57 GB no longer does.
    CHECK(host_memory_problem(4096, 4096, 1.57e9).empty());
    CHECK(host_memory_problem(4096, 4096, 1.57e9, kSoftwareBytesPerPixel, kSoftwareFixedBytes + more) != "");
    // --max-features 524288 --extended: 458,752 more entries of 128 values.
    DetectorConfig large;
    large.max_features = 1 << 19;
    large.extended = true;
    const double full = software_list_bytes(large, large.max_features, 65536);
    CHECK(full >= 458752.0 * 128 * 4 * 2);
    // ... but the list of a 64 x 64 image holds no more entries than its
    // candidate atlas has texels (about 0.4 per pixel), so asking for that
    // many features on it costs little.
    glm::ivec2 atlas, default_atlas;
    atlas_layout(64, 64, large, atlas);
    atlas_layout(64, 64, DetectorConfig{}, default_atlas);
    CHECK(atlas.x * atlas.y < 64 * 64 / 2);  // a texel per 2 x 2 samples (extrema.hpp)
    CHECK(software_list_bytes(large, atlas.x * atlas.y, default_atlas.x * default_atlas.y) < 0.01 * full);
  }

}  // TEST_SUITE

TEST_SUITE("gl") {
  TEST_CASE("GPU keypoints agree with the CPU reference on box.png") {
    test::headless_context();
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), DetectorConfig{});
  }

  TEST_CASE("GPU keypoints agree with the CPU reference on graf1.png") {
    test::headless_context();
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), DetectorConfig{});
  }

  TEST_CASE("GPU keypoints agree with the CPU reference on graf1.png with every input 2-D") {
    // As for images too large for the driver's buffer textures: the Hessian
    // and suppression read 2-D textures instead of their buffer copies.
    test::headless_context();
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), DetectorConfig{}, 0);
  }

  TEST_CASE("GPU keypoints agree with the CPU reference on graf3.png and box_in_scene.png") {
    for (const char* name : {"graf3.png", "box_in_scene.png"}) {
      INFO(std::string(name));
      compare(load_gray(std::string(GLSURF_TEST_ASSET_DIR "/") + name), DetectorConfig{});
    }
  }

  TEST_CASE("GPU keypoints agree with the CPU reference with 3 layers per octave and a low threshold") {
    test::headless_context();
    DetectorConfig config;
    config.n_octave_layers = 3;
    config.hessian_threshold = 20;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), config);
  }

  TEST_CASE("GPU keypoints agree with the CPU reference with the first octave sampled every 2 and 3 pixels") {
    test::headless_context();
    DetectorConfig config;
    config.first_step = 2;  // OpenSURF's default
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png"), config);
    config.first_step = 3;
    config.hessian_threshold = 20;
    compare(load_gray(GLSURF_TEST_ASSET_DIR "/box.png"), config);
  }

  TEST_CASE("a moved GpuDetector detects as a fresh one does") {
    // 80 x 80: the integral image has no pyramid levels (<= 8,192 pixels),
    // so its result is the doubling ping-pong inside the stage, which a
    // pointer kept across the move left behind.
    DetectorConfig config;
    config.hessian_threshold = 0;
    const GrayImage image = test::random_image(80, 80, 5);
    const std::vector<KeyPoint> cpu = cpu::detect(image, config);
    REQUIRE(cpu.size() > 50);
    GpuDetector a(test::headless_context(), config);
    a.detect(image);
    GpuDetector b(std::move(a));
    const std::vector<KeyPoint> moved = b.detect(image);
    CHECK(matched_fraction(cpu, moved) >= 0.99);
    CHECK(matched_fraction(moved, cpu) >= 0.99);
    GpuDetector c(test::headless_context(), config);
    c.detect(test::random_image(80, 80, 6));
    c = std::move(b);
    const std::vector<KeyPoint> assigned = c.detect(image);
    CHECK(matched_fraction(cpu, assigned) >= 0.99);
    CHECK(matched_fraction(assigned, cpu) >= 0.99);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("an invalid configuration is refused before any stage is built") {
    DetectorConfig config;
    config.n_octaves = 31;  // 2 << 30 overflows in the Hessian stage's filter sides
    CHECK_THROWS_WITH_AS(GpuDetector(test::headless_context(), config), doctest::Contains("valid_config"),
                         std::logic_error);
  }

  TEST_CASE("images smaller than the smallest filter are refused with a clear error") {
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    CHECK_THROWS_WITH_AS(detector.detect(GrayImage(22, 100, 0)),
                         doctest::Contains("smaller than the smallest filter"), Error);
    CHECK(detector.detect(GrayImage(64, 48, 128)).empty());  // constant: nothing to find
  }

  TEST_CASE("an image whose pixels are not width x height is refused, not read past its end or left stale") {
    // Put together by hand, a GrayImage can carry fewer pixel values than
    // its sides say. With none, the upload used to be skipped and the
    // previous image's keypoints came back (733 for box.png); with too few,
    // the upload read past the buffer's end.
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    GpuDetector detector(test::headless_context(), DetectorConfig{});
    const size_t found = detector.detect(box).size();
    REQUIRE(found > 0);
    const std::string sides = std::to_string(box.width) + "x" + std::to_string(box.height);
    const std::string expected = std::to_string(box.pixels.size());
    GrayImage empty = box;
    empty.pixels.clear();
    const std::string why = "image of " + sides + " has 0 pixel values instead of " + expected;
    CHECK_THROWS_WITH_AS(detector.detect(empty), doctest::Contains(why.c_str()), Error);
    CHECK_THROWS_WITH_AS(detector.detect_and_compute(empty), doctest::Contains("has 0 pixel values"), Error);
    GrayImage short_one = box;
    short_one.pixels.resize(10);
    CHECK_THROWS_WITH_AS(detector.detect(short_one), doctest::Contains("has 10 pixel values"), Error);
    CHECK_THROWS_WITH_AS(detector.compute(short_one, {KeyPoint{100, 100, 20}}),
                         doctest::Contains("has 10 pixel values"), Error);
    GrayImage long_one = box;
    long_one.pixels.push_back(0);
    CHECK_THROWS_AS(detector.detect(long_one), Error);
    // Refused before anything ran: the detector is as it was.
    CHECK(detector.detect(box).size() == found);
  }

  TEST_CASE(
      "a detector or matcher used where its context is not current says so, and works again once it is") {
    const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
    gl::Context& context = test::headless_context();
    GpuDetector detector(context, DetectorConfig{});
    GpuMatcher matcher(context, MatchConfig{});
    const GrayImage smaller = resize(box, 200, 150);
    const std::vector<KeyPoint> smaller_keypoints = detector.detect(smaller);
    const auto same = [](const std::vector<KeyPoint>& a, const std::vector<KeyPoint>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const KeyPoint& p, const KeyPoint& q) {
        return p.x == q.x && p.y == q.y && p.size == q.size && p.response == q.response;
      });
    };
    REQUIRE(!smaller_keypoints.empty());
    const Features features = detector.detect_and_compute(box);
    REQUIRE(!features.keypoints.empty());
    const char* not_current = "its OpenGL context is not current on this thread";
    // Another thread, where no context is current: the detector used to say
    // the image was too large ("the driver allows 0 per side").
    std::string detect_error, match_error;
    std::thread([&] {
      try {
        detector.detect(box);
      } catch (const Error& e) {
        detect_error = e.what();
      }
      try {
        matcher.match(features, features);
      } catch (const Error& e) {
        match_error = e.what();
      }
    }).join();
    CHECK(detect_error.find(std::string("GpuDetector: ") + not_current) != std::string::npos);
    CHECK(match_error.find(std::string("GpuMatcher: ") + not_current) != std::string::npos);
    // Released here, the context can be made current on another thread and
    // used there; then it comes back.
    context.release_current();
    CHECK_FALSE(context.tag().is_current());
    size_t found_there = 0;
    std::thread([&] {
      context.make_current();
      found_there = detector.detect(box).size();
      context.release_current();
    }).join();
    context.make_current();
    CHECK(found_there == features.keypoints.size());
    // A second context made current: refused before anything is made in it
    // (a new size used to build its textures there and stay broken, with
    // GL_INVALID_VALUE, after the right context was current again).
    {
      gl::Context other = gl::Context::headless();
      CHECK(other.tag().is_current());
      CHECK_FALSE(context.tag().is_current());
      CHECK_THROWS_WITH_AS(detector.detect(smaller), doctest::Contains(not_current), Error);
      CHECK_THROWS_WITH_AS(detector.size_problem(200, 150), doctest::Contains(not_current), Error);
      context.make_current();
      CHECK(same(detector.detect(smaller), smaller_keypoints));
      CHECK(matcher.match(features, features).size() == features.keypoints.size());
      other.make_current();
    }
    // `other` is gone, and with it the current context.
    CHECK_FALSE(context.tag().is_current());
    CHECK_FALSE(gl::ContextTag().is_current());
    context.make_current();
    CHECK(detector.detect(box).size() == features.keypoints.size());
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("images too wide for the candidate atlas are refused before any stage is built") {
    // The atlas (extrema.hpp) holds a texel per cell of 2 x 2 samples. It
    // puts octave 0's maps side by side, ceil(W / 2) cells wide each, and
    // the other octaves' to their right, each no wider than octave 1's
    // ceil(ceil(W / 2) / 2) cells: with M maps per octave (ceil(layers / 2))
    // M (ceil(W / 2) + ceil(ceil(W / 2) / 2)) wide, and at 30 rows 15 high.
    // With one map (1 or 2 layers) that is under W, so the integral image
    // (W + 2 wide) reaches the driver's limit first; from two maps (3 or 4
    // layers) on the atlas does.
    const int max = test::headless_context().info().max_texture_size;
    const auto half = [](int n) { return (n + 1) / 2; };
    for (const int layers : {3, 5}) {
      DetectorConfig config;
      config.n_octave_layers = layers;
      const int maps = (layers + 1) / 2;
      const auto atlas_width = [&](int w) { return maps * (half(w) + half(half(w))); };
      int widest = 1;  // the widest image whose atlas fits
      while (atlas_width(widest + 1) <= max) ++widest;
      GpuDetector detector(test::headless_context(), config);
      INFO(layers << " layers, widest accepted " << widest);
      CHECK(detector.size_problem(widest, 30).empty());
      const std::string why = detector.size_problem(widest + 1, 30);
      CHECK(why.find("candidate atlas needs " + std::to_string(atlas_width(widest + 1)) + "x15") !=
            std::string::npos);
      // Refused at once: building the other stages for such an image first
      // took 5 s on llvmpipe (at 2,000 rows).
      const GrayImage tall(widest + 1, 2000, 0);
      const auto t0 = std::chrono::steady_clock::now();
      CHECK_THROWS_WITH_AS(detector.detect(tall), doctest::Contains("candidate atlas"), Error);
      CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0);
    }
    // With the default two layers the integral image's limit is the one met.
    GpuDetector plain(test::headless_context(), DetectorConfig{});
    CHECK(plain.size_problem(max - 2, 30).empty());
    CHECK(plain.size_problem(max - 1, 30).find("candidate atlas") == std::string::npos);
    CHECK_FALSE(plain.size_problem(max - 1, 30).empty());
    // The widest image with three layers still runs, and the detector is
    // whole after a refusal.
    DetectorConfig three;
    three.n_octave_layers = 3;
    GpuDetector detector(test::headless_context(), three);
    CHECK_THROWS_AS(detector.detect(GrayImage(max, 30, 0)), Error);
    int widest = 1;
    while (2 * (half(widest + 1) + half(half(widest + 1))) <= max) ++widest;
    CHECK(detector.detect(GrayImage(widest, 30, 0)).empty());
    CHECK(detector.detect(GrayImage(64, 48, 128)).empty());
  }

}  // TEST_SUITE
