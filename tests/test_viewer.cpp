// The viewer's picture: keypoints drawn from the GPU point list land on the
// keypoints the detector reports, and nowhere else.
#include <doctest/doctest.h>

#include "app/viewer.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

#include <cmath>

using namespace glsurf;

TEST_SUITE("cpu") {

TEST_CASE("viewer: the window keeps the image's aspect within 1280 x 1024 and is at least 320 x 200") {
  const auto size = [](int w, int h) {
    const app::ViewSize s = app::initial_view_size(w, h);
    return std::to_string(s.width) + "x" + std::to_string(s.height);
  };
  CHECK(size(800, 640) == "800x640");     // fits: the image's own size
  CHECK(size(324, 223) == "324x223");
  CHECK(size(1920, 1080) == "1280x720");  // scaled to the width
  CHECK(size(600, 3000) == "320x1024");   // scaled to the height (205 wide, widened)
  CHECK(size(16384, 23) == "1280x200");   // would be 1280 x 2: letterboxed
  CHECK(size(23, 16384) == "320x1024");
  CHECK(size(1, 1) == "320x200");
}

}  // TEST_SUITE

TEST_SUITE("gl") {

TEST_CASE("viewer: keypoint circles at the detected keypoints and none far from them") {
  const GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
  DetectorConfig config;
  config.hessian_threshold = 800;  // fewer, clearer circles
  Detector detector(test::headless_context(), config);
  const std::vector<KeyPoint> keypoints = detector.detect(image);
  REQUIRE(keypoints.size() > 20);
  gl::PassRunner runner;
  runner.set_check_every_pass(true);
  app::ViewRenderer renderer(gl::ShaderSource::from_environment());
  renderer.resize(image.width, image.height);  // 1:1, no offset
  gl::Texture texture(image.width, image.height, gl::Format::R8, "image");
  texture.upload(image.pixels.data());
  const Detector::OnGpu found = detector.detect_on_gpu(image);
  REQUIRE(found.count == static_cast<int>(keypoints.size()));
  renderer.render(runner, texture, found, {});
  const std::vector<std::uint8_t> rgba = renderer.frame_texture().download_u8();

  // Circle colours: cyan (dark blobs) and orange (light blobs); image pixels are grey.
  auto coloured = [&](int x, int y) {
    const std::uint8_t* p = &rgba[(static_cast<size_t>(y) * image.width + x) * 4];
    return std::abs(p[0] - p[2]) > 100;  // far from grey
  };
  int far = 0, pixels = 0;
  std::vector<int> on_circle(keypoints.size(), 0);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (!coloured(x, y)) continue;
      ++pixels;
      bool near = false;
      for (size_t k = 0; k < keypoints.size(); ++k) {
        const double d = std::hypot(x - keypoints[k].x, y - keypoints[k].y), r = keypoints[k].size / 2;
        if (d <= r + 1.5) near = true;
        if (std::abs(d - r) <= 1.5) ++on_circle[k];
      }
      far += !near;
    }
  }
  int drawn = 0, large = 0;
  for (size_t k = 0; k < keypoints.size(); ++k) {
    if (keypoints[k].size / 2 < 3) continue;
    ++large;
    drawn += on_circle[k] > 0;
  }
  INFO(pixels << " coloured pixels, " << far << " far from every keypoint; " << drawn << " of " << large
              << " circles found");
  CHECK(pixels > 100);
  CHECK(far == 0);
  CHECK(drawn >= 0.95 * large);
  CHECK_NOTHROW(gl::check_gl_errors("end of test"));
}

}  // TEST_SUITE
