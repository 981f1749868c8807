// The pictures of match --draw and detect --draw (io/draw.hpp), on synthetic
// images whose every pixel is known: the colours at the marks, the colours
// that must not appear, and a homography outline that stays inside B.
#include <doctest/doctest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/draw.hpp"
#include "io/exif.hpp"
#include "io/image.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

// A scratch folder, removed on destruction.
struct ScratchDir {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("glsurf_draw_test_" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(root); }
  ~ScratchDir() { std::filesystem::remove_all(root); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path(const std::string& name) const { return (root / name).string(); }
};

RgbImage grey_image(int width, int height, std::uint8_t level = 128) {
  return {width, height, std::vector<std::uint8_t>(static_cast<size_t>(width) * height * 3, level)};
}

Rgb pixel(const RgbImage& image, int x, int y) {
  const std::uint8_t* p = &image.pixels[(static_cast<size_t>(y) * image.width + x) * 3];
  return {p[0], p[1], p[2]};
}

bool same(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

// The outliers' red, faint or not: red well above both green and blue (not
// where the yellow outline blends into a line of another colour).
bool reddish(Rgb c) { return c.r > 1.5 * std::max(c.g, c.b) + 20; }

// The outline's yellow: red and green well above blue.
bool yellowish(Rgb c) { return c.r > c.b + 80 && c.g > c.b + 80; }

int count_if_in(const RgbImage& image, int x0, int y0, int x1, int y1, bool (*test)(Rgb)) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += test(pixel(image, x, y));
  return n;
}

KeyPoint at(float x, float y) {
  KeyPoint k;
  k.x = x, k.y = y, k.size = 12;
  return k;
}

// Two 120 x 80 grey images; matches 0..2 are inliers (distances 0.1, 0.3,
// 0.2), 3 and 4 outliers, each line along a pixel row.
struct Scene {
  RgbImage a = grey_image(120, 80), b = grey_image(120, 80);
  Features fa, fb;
  std::vector<Match> matches = {{0, 0, 0.1f}, {1, 1, 0.3f}, {2, 2, 0.2f}, {3, 3, 0.15f}, {4, 4, 0.25f}};
  std::vector<bool> inliers = {true, true, true, false, false};
  Scene() {
    fa.keypoints = {at(20, 10), at(30, 25), at(40, 40), at(50, 55), at(60, 70)};
    fb.keypoints = {at(25, 10), at(35, 25), at(45, 40), at(90, 55), at(100, 70)};
  }
  MatchDrawing drawing() const {
    MatchDrawing d;
    d.a = &a, d.b = &b, d.fa = &fa, d.fb = &fb, d.matches = &matches, d.inliers = &inliers;
    return d;
  }
};

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("match picture: inliers in their colours at both endpoints, outliers only when asked") {
    const Scene scene;
    MatchDrawing d = scene.drawing();
    REQUIRE(match_picture_scale(d) == 1.0);
    const RgbImage picture = draw_matches(d);
    REQUIRE(picture.width == 240);
    REQUIRE(picture.height > 80);  // the caption strip below
    for (size_t i = 0; i < 3; ++i) {
      INFO("inlier " << i);
      const KeyPoint &ka = scene.fa.keypoints[i], &kb = scene.fb.keypoints[i];
      CHECK(same(pixel(picture, static_cast<int>(ka.x), static_cast<int>(ka.y)), match_colour(i)));
      CHECK(same(pixel(picture, 120 + static_cast<int>(kb.x), static_cast<int>(kb.y)), match_colour(i)));
    }
    CHECK(!same(match_colour(0), match_colour(1)));
    // No red anywhere on the images by default; on the outliers' lines with --draw-outliers.
    CHECK(count_if_in(picture, 0, 0, 240, 80, reddish) == 0);
    d.outliers = true;
    const RgbImage with_outliers = draw_matches(d);
    for (size_t i = 3; i < 5; ++i) {
      INFO("outlier " << i);
      const KeyPoint &ka = scene.fa.keypoints[i], &kb = scene.fb.keypoints[i];
      const int mx = static_cast<int>((ka.x + 120 + kb.x) / 2), my = static_cast<int>(ka.y);
      CHECK(reddish(pixel(with_outliers, mx, my)));
    }
    // The inliers stay as they were, drawn over the outliers.
    CHECK(same(pixel(with_outliers, 20, 10), match_colour(0)));

    // --draw-max 2: the two of smallest distance (0 and 2); 1 is left out.
    d.outliers = false;
    d.max_drawn = 2;
    const RgbImage two = draw_matches(d);
    CHECK(same(pixel(two, 20, 10), match_colour(0)));
    CHECK(same(pixel(two, 40, 40), match_colour(2)));
    CHECK(same(pixel(two, 30, 25), Rgb{128, 128, 128}));
  }

  TEST_CASE("match picture: the homography outline stays inside B, also where H sends A far away") {
    const Scene scene;
    MatchDrawing d = scene.drawing();
    d.max_drawn = 0;  // the outline alone
    const RgbImage plain = draw_matches(d);
    // A mild one: a shift by (10, 5) and a slight shrink; the outline is seen in B.
    const Homography mild = {0.8, 0, 10, 0, 0.8, 5, 0, 0, 1};
    d.h = &mild;
    const RgbImage seen = draw_matches(d);
    CHECK(count_if_in(seen, 120, 0, 240, 80, yellowish) > 100);
    CHECK(count_if_in(seen, 0, 0, 120, 80, yellowish) == 0);
    // Corners sent 1e6 pixels away, a side that crosses the line at infinity
    // (w = 0.02 x - 1 changes sign at x = 50), a degenerate map: drawn
    // without a crash, and nothing outside B's frame changes.
    const Homography far = {1e6, 0, -3e7, 0, 1e6, 2e5, 0, 0, 1};
    const Homography through_infinity = {1, 0, 0, 0, 1, 0, 0.02, 0, -1};
    const Homography degenerate = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    const Homography not_finite = {1e308, 1e308, 1e308, 0, 1, 0, 0, 0, 1e-308};
    for (const Homography* h : {&far, &through_infinity, &degenerate, &not_finite}) {
      d.h = h;
      const RgbImage picture = draw_matches(d);
      REQUIRE(picture.width == plain.width);
      bool a_unchanged = true;
      for (int y = 0; y < 80; ++y)
        for (int x = 0; x < 120; ++x)
          a_unchanged = a_unchanged && same(pixel(picture, x, y), pixel(plain, x, y));
      CHECK(a_unchanged);
    }
    d.h = &through_infinity;
    CHECK(count_if_in(draw_matches(d), 120, 0, 240, 80, yellowish) > 20);  // the part in front is drawn
  }

  TEST_CASE(
      "match picture: a large pair is drawn at most max_width wide, the marks where the keypoints are") {
    Scene scene;
    scene.a = grey_image(3000, 1000, 60);
    scene.b = grey_image(1000, 1000, 60);
    scene.fa.keypoints[0] = at(1500, 500);
    scene.fb.keypoints[0] = at(500, 500);
    MatchDrawing d = scene.drawing();
    d.max_width = 800;  // 4000 wide: drawn at 0.2
    REQUIRE(match_picture_scale(d) == doctest::Approx(0.2));
    const RgbImage picture = draw_matches(d);
    CHECK(picture.width == 800);
    CHECK(same(pixel(picture, 300, 100), match_colour(0)));        // (1500.5 * 0.2 - 0.5, 500.5 * 0.2 - 0.5)
    CHECK(same(pixel(picture, 600 + 100, 100), match_colour(0)));  // B from x = 600
  }

  TEST_CASE("keypoint picture: each circle in its Laplacian sign's colour") {
    const RgbImage image = grey_image(100, 80);
    std::vector<KeyPoint> keypoints(2);
    keypoints[0].x = 30, keypoints[0].y = 30, keypoints[0].size = 20, keypoints[0].laplacian = 1;
    keypoints[0].angle = 90, keypoints[0].response = 2;
    keypoints[1].x = 70, keypoints[1].y = 50, keypoints[1].size = 16, keypoints[1].laplacian = -1;
    keypoints[1].angle = 0, keypoints[1].response = 1;
    KeypointDrawing d;
    d.image = &image, d.keypoints = &keypoints;
    const RgbImage picture = draw_keypoints(d);
    CHECK(picture.width == 100);
    CHECK(same(pixel(picture, 30 - 10, 30), kDarkBlobColour));  // on the circle, radius size / 2
    CHECK(same(pixel(picture, 30, 30 - 5), kDarkBlobColour));   // on the tick, pointing up (90 degrees)
    CHECK(same(pixel(picture, 70, 50 + 8), kLightBlobColour));
    CHECK(same(pixel(picture, 70 + 4, 50), kLightBlobColour));  // the tick, pointing right (0 degrees)
    CHECK(same(pixel(picture, 50, 40), Rgb{128, 128, 128}));    // between them, the image
    // The strongest only: the first.
    d.max_drawn = 1;
    const RgbImage strongest = draw_keypoints(d);
    CHECK(same(pixel(strongest, 20, 30), kDarkBlobColour));
    CHECK(same(pixel(strongest, 70, 58), Rgb{128, 128, 128}));
  }

  TEST_CASE("load_gray with colour: the colours as stored, the grey from them, EXIF turns both") {
    ScratchDir dir;
    const int w = 6, h = 4;
    std::vector<std::uint8_t> rgb(static_cast<size_t>(w) * h * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>(i * 7 % 256);
    const std::string path = dir.path("colour.png");
    REQUIRE(stbi_write_png(path.c_str(), w, h, 3, rgb.data(), w * 3));
    RgbImage colour;
    const GrayImage grey = load_gray(path, {}, &colour);
    CHECK(colour.width == w);
    CHECK(colour.height == h);
    CHECK(colour.pixels == rgb);
    CHECK(grey.pixels == load_gray(path).pixels);
    // A grey image: its grey repeated.
    const std::string grey_path = dir.path("grey.png");
    REQUIRE(stbi_write_png(grey_path.c_str(), w, h, 1, grey.pixels.data(), w));
    RgbImage from_grey;
    load_gray(grey_path, {}, &from_grey);
    CHECK(from_grey.pixels == rgb_of(grey).pixels);
    // A turn by EXIF orientation 6 (90 degrees clockwise to show).
    const RgbImage turned = apply_exif_orientation(colour, 6);
    CHECK(turned.width == h);
    CHECK(turned.height == w);
    CHECK(same(pixel(turned, h - 1, 0), pixel(colour, 0, 0)));
    CHECK(same(pixel(turned, 0, w - 1), pixel(colour, w - 1, h - 1)));
  }

  TEST_CASE("load_gray with colour: a JPEG's EXIF orientation turns the colours as it turns the grey") {
    ScratchDir dir;
    const int w = 24, h = 16;
    std::vector<std::uint8_t> rgb(static_cast<size_t>(w) * h * 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c)
          rgb[(static_cast<size_t>(y) * w + x) * 3 + c] = static_cast<std::uint8_t>(c == 0   ? x * 10
                                                                                    : c == 1 ? y * 15
                                                                                             : 128);
    std::string jpeg;
    REQUIRE(stbi_write_jpg_to_func(
        [](void* to, void* data, int size) {
          static_cast<std::string*>(to)->append(static_cast<const char*>(data), static_cast<size_t>(size));
        },
        &jpeg, w, h, 3, rgb.data(), 100));
    // An APP1 EXIF segment (little-endian TIFF) whose IFD0 holds orientation 6.
    const std::string tiff("II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0\x06\0\0\0\0\0\0\0", 26);
    const std::string body = std::string("Exif\0\0", 6) + tiff;
    const std::string segment =
        std::string("\xff\xe1", 2) + static_cast<char>(0) + static_cast<char>(body.size() + 2) + body;
    const auto write = [&](const std::string& name, const std::string& bytes) {
      std::ofstream(dir.path(name), std::ios::binary) << bytes;
      return dir.path(name);
    };
    RgbImage stored, shown;
    load_gray(write("stored.jpg", jpeg), {}, &stored);
    const GrayImage grey =
        load_gray(write("turned.jpg", jpeg.substr(0, 2) + segment + jpeg.substr(2)), {}, &shown);
    REQUIRE(stored.width == w);
    CHECK(shown.width == h);
    CHECK(shown.height == w);
    CHECK(grey.width == h);
    CHECK(shown.pixels == apply_exif_orientation(stored, 6).pixels);
    // The grey is the colours' BT.601 grey, pixel for pixel, in the same orientation.
    int off = 0;
    for (int y = 0; y < grey.height; ++y)
      for (int x = 0; x < grey.width; ++x) {
        const Rgb c = pixel(shown, x, y);
        const int expected = (4899 * c.r + 9617 * c.g + 1868 * c.b + 8192) >> 14;
        off += std::abs(expected - grey.at(x, y)) > 1;
      }
    CHECK(off == 0);
  }
}
