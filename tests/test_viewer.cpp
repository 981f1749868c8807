// The viewer's picture: keypoints drawn from the GPU point list land on the
// keypoints the detector reports, and nowhere else.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "window/viewer.hpp"

using namespace glsurf;

TEST_SUITE("cpu") {
  TEST_CASE("viewer: the window keeps the image's aspect within 1280 x 1024 and is at least 320 x 200") {
    const auto size = [](int w, int h) {
      const app::ViewSize s = app::initial_view_size(w, h);
      return std::to_string(s.width) + "x" + std::to_string(s.height);
    };
    CHECK(size(800, 640) == "800x640");  // fits: the image's own size
    CHECK(size(324, 223) == "324x223");
    CHECK(size(1920, 1080) == "1280x720");  // scaled to the width
    CHECK(size(600, 3000) == "320x1024");   // scaled to the height (205 wide, widened)
    CHECK(size(16384, 23) == "1280x200");   // would be 1280 x 2: letterboxed
    CHECK(size(23, 16384) == "320x1024");
    CHECK(size(1, 1) == "320x200");
  }

  TEST_CASE("viewer: the HUD's frame rate is the first frame's at once, then a running mean") {
    // Steady 40 ms frames read 25 fps from the first frame on (a mean started
    // from 0 read 2.5 after one frame, 4.75 after two).
    double fps = 0;
    for (int frame = 0; frame < 3; ++frame) {
      fps = app::running_fps(fps, 40.0);
      CHECK(fps == doctest::Approx(25.0));
    }
    // One 20 ms frame moves it a tenth of the way to 50 fps.
    CHECK(app::running_fps(25.0, 20.0) == doctest::Approx(27.5));
    // A frame of no measurable time changes nothing, and is no first rate.
    CHECK(app::running_fps(25.0, 0.0) == 25.0);
    CHECK(app::running_fps(0.0, 0.0) == 0.0);
  }

  TEST_CASE("viewer: HUD lines are printable ASCII and wrap at spaces to the view's width") {
    // One '?' per character: "é" is two bytes, "日本" six, the tab and newline one each.
    CHECK(app::hud_lines({"caf\xc3\xa9_\xe6\x97\xa5\xe6\x9c\xac.png\t\n!"}, 1e9f) ==
          std::vector<std::string>{"caf?_??.png?"
                                   "?!"});
    CHECK(app::hud_lines({"\xa9 lone continuation"}, 1e9f) ==
          std::vector<std::string>{"? lone continuation"});
    const std::string line = "GPU ms: integral 18.9 hessian 25.4 nms n/a list 6.3 describe 49.3";
    for (const float width : {60.0f, 100.0f, 200.0f}) {
      const std::vector<std::string> lines = app::hud_lines({line}, width);
      REQUIRE(lines.size() > 1);
      std::string joined;
      for (size_t i = 0; i < lines.size(); ++i) {
        CHECK(app::text_width(lines[i]) <= width);
        if (i > 0) {
          CHECK(lines[i].rfind("  ", 0) == 0);  // continuations indented
          joined += " " + lines[i].substr(2);
        } else {
          joined = lines[i];
        }
      }
      CHECK(joined == line);  // every word kept, in order
    }
    CHECK(app::hud_lines({line}, 1e9f) == std::vector<std::string>{line});
    // A word wider than the view stays whole rather than looping or vanishing.
    CHECK(app::hud_lines({"abcdefghijklmnop"}, 10.0f) == std::vector<std::string>{"abcdefghijklmnop"});
    CHECK(app::hud_lines({"a_very_long_file_name.png (1/3) 640x480"}, 60.0f) ==
          std::vector<std::string>{"a_very_long_file_name.png", "  (1/3)", "  640x480"});
    CHECK(app::hud_lines({"ab   "}, 5.0f) == std::vector<std::string>{"ab   "});
  }

}  // TEST_SUITE

namespace {

// box.png, and a renderer of its size that draws it 1:1 (no offset).
struct BoxView {
  const gl::Context& context = test::headless_context();  // before any GL object
  GrayImage image = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
  gl::PassRunner runner;
  app::ViewRenderer renderer{gl::ShaderSource::from_environment()};
  gl::Texture texture{image.width, image.height, gl::Format::R8, "image"};
  BoxView() {
    runner.set_check_every_pass(true);
    renderer.resize(image.width, image.height);
    texture.upload(image.pixels.data());
  }
};

}  // namespace

TEST_SUITE("gl") {
  TEST_CASE("viewer: with second orientations, a second tick where a keypoint has one") {
    BoxView view;
    const GrayImage& image = view.image;
    DetectorConfig config;
    config.hessian_threshold = 1600;
    DetectorConfig second = config;
    second.second_orientation = 0.8f;
    GpuDetector plain(view.context, config), twice(view.context, second);
    plain.detect_on_gpu(image);
    CHECK(plain.last_on_gpu().second_angles == nullptr);
    // The same keypoints drawn with and without their second angles. (Not
    // the plain detector's picture: with second orientations the first is
    // sought among more candidates, cpu::orientation_candidates, so where two
    // peaks are nearly equal it may be the other one.)
    const GpuDetector::OnGpu found = twice.detect_on_gpu(image);
    REQUIRE(found.second_angles != nullptr);
    const auto picture = [&](const GpuDetector::OnGpu& keypoints) {
      view.renderer.render(view.runner, view.texture, keypoints, {});
      return view.renderer.frame_texture().download_u8();
    };
    GpuDetector::OnGpu first_only = found;
    first_only.second_angles = nullptr;
    const std::vector<std::uint8_t> one = picture(first_only), two = picture(found);
    const std::vector<float> list = found.list->download_f32(), seconds = found.second_angles->download_f32();
    // The middle of each second tick of a keypoint large enough that it lies
    // clear of the centre and of the circle: drawn with second orientations
    // (a pixel of the 3 x 3 around it coloured), also where nothing is drawn
    // there with one orientation (the circles overlap, so most are).
    const auto coloured = [&](const std::vector<std::uint8_t>& rgba, int x, int y) {
      const std::uint8_t* p = &rgba[(static_cast<size_t>(y) * image.width + x) * 4];
      return std::abs(p[0] - p[2]) > 100;  // cyan or orange, far from grey
    };
    const auto coloured_near = [&](const std::vector<std::uint8_t>& rgba, int x, int y) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          if (coloured(rgba, std::clamp(x + dx, 0, image.width - 1),
                       std::clamp(y + dy, 0, image.height - 1))) {
            return true;
          }
        }
      }
      return false;
    };
    int ticks = 0, with = 0, clear = 0, drawn_where_clear = 0;
    for (int k = 0; k < found.count; ++k) {
      const float* p = &list[4 * static_cast<size_t>(k)];  // x, y, size * laplacian, response
      const float angle = seconds[static_cast<size_t>(k)], radius = 0.5f * std::abs(p[2]);
      if (angle < 0 || radius < 8) continue;
      const float a = angle * 3.14159265f / 180.0f;
      const int x = static_cast<int>(std::lround(p[0] + 0.5f * radius * std::cos(a)));
      const int y = static_cast<int>(std::lround(p[1] - 0.5f * radius * std::sin(a)));
      ++ticks;
      with += coloured_near(two, x, y);
      if (!coloured_near(one, x, y)) {
        ++clear;
        drawn_where_clear += coloured_near(two, x, y);
      }
    }
    INFO(ticks << " second ticks: drawn at " << with << "; " << clear
               << " where nothing is drawn with one orientation, " << drawn_where_clear << " of them drawn");
    CHECK(ticks >= 10);
    CHECK(with >= 0.95 * ticks);
    CHECK(clear >= 10);
    CHECK(drawn_where_clear == clear);
    // And nothing else: every pixel that the second orientations colour lies
    // on one of their ticks (none for a keypoint without one).
    const auto on_a_second_tick = [&](int x, int y) {
      for (int k = 0; k < found.count; ++k) {
        const float angle = seconds[static_cast<size_t>(k)];
        if (angle < 0) continue;
        const float* p = &list[4 * static_cast<size_t>(k)];
        const float a = angle * 3.14159265f / 180.0f, radius = 0.5f * std::abs(p[2]);
        const float dx = radius * std::cos(a), dy = -radius * std::sin(a);  // the tick, ccw on screen
        const float along = ((x - p[0]) * dx + (y - p[1]) * dy) / std::max(dx * dx + dy * dy, 1e-6f);
        const float t = std::clamp(along, 0.0f, 1.0f);  // the nearest point of the tick
        if (std::hypot(x - (p[0] + t * dx), y - (p[1] + t * dy)) <= 1.5f) return true;
      }
      return false;
    };
    int added = 0, stray = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        if (!coloured(two, x, y) || coloured(one, x, y)) continue;
        ++added;
        stray += !on_a_second_tick(x, y);
      }
    }
    INFO(added << " pixels coloured by second orientations, " << stray << " off their ticks");
    CHECK(added > 100);
    CHECK(stray == 0);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("viewer: keypoint circles at the detected keypoints and none far from them") {
    BoxView view;
    const GrayImage& image = view.image;
    gl::PassRunner& runner = view.runner;
    app::ViewRenderer& renderer = view.renderer;
    const gl::Texture& texture = view.texture;
    DetectorConfig config;
    config.hessian_threshold = 800;  // fewer, clearer circles
    GpuDetector detector(view.context, config);
    const std::vector<KeyPoint> keypoints = detector.detect(image);
    REQUIRE(keypoints.size() > 20);
    const GpuDetector::OnGpu found = detector.detect_on_gpu(image);
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
    // With the HUD's translucent panel over it, the frame stays opaque: a
    // screenshot is what the window shows (the panel's alpha was 0.75).
    renderer.render(runner, texture, found, {"box.png (1/1)", "a second line"});
    const std::vector<std::uint8_t> with_hud = renderer.frame_texture().download_u8();
    size_t translucent = 0, changed = 0;
    for (size_t i = 0; i < with_hud.size(); i += 4) {
      translucent += with_hud[i + 3] != 255;
      changed += with_hud[i] != rgba[i];
    }
    CHECK(changed > 1000);  // the panel was drawn
    CHECK(translucent == 0);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE
