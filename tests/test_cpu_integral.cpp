// CPU tests that always run: the reference integral image against hand-worked
// cases and brute-force sums, and the image loader's errors.
#include <doctest/doctest.h>

#include "cpu/integral.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "support.hpp"

#include <cstdio>
#include <fstream>

using namespace glsurf;

TEST_SUITE("cpu") {

TEST_CASE("integral of a 1x1 image") {
  GrayImage image(1, 1, 7);
  const cpu::IntegralImage s = cpu::integral_image(image);
  CHECK(s.sums == std::vector<std::uint32_t>{0, 0, 0, 7});
}

TEST_CASE("integral of a 3x2 image, worked by hand") {
  // 1 2 3          0  0  0  0
  // 4 5 6   --->   0  1  3  6
  //                0  5 12 21
  GrayImage image(3, 2);
  image.pixels = {1, 2, 3, 4, 5, 6};
  const cpu::IntegralImage s = cpu::integral_image(image);
  CHECK(s.sums == std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 3, 6, 0, 5, 12, 21});
  CHECK(s.box_sum(1, 0, 3, 2) == 2 + 3 + 5 + 6);
  CHECK(s.box_sum(2, 1, 3, 2) == 6);
  CHECK(s.box_sum(1, 1, 1, 2) == 0);  // empty box
}

TEST_CASE("integral of a column and a row") {
  GrayImage column(1, 4);
  column.pixels = {10, 20, 30, 40};
  CHECK(cpu::integral_image(column).sums == std::vector<std::uint32_t>{0, 0, 0, 10, 0, 30, 0, 60, 0, 100});
  GrayImage row(4, 1);
  row.pixels = {255, 1, 0, 2};
  CHECK(cpu::integral_image(row).sums == std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 255, 256, 256, 258});
}

TEST_CASE("every box sum of a random image equals the direct sum") {
  const GrayImage image = test::random_image(9, 7, 11);
  const cpu::IntegralImage s = cpu::integral_image(image);
  for (int y0 = 0; y0 <= 7; ++y0)
    for (int y1 = y0; y1 <= 7; ++y1)
      for (int x0 = 0; x0 <= 9; ++x0)
        for (int x1 = x0; x1 <= 9; ++x1) {
          std::uint32_t direct = 0;
          for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) direct += image.at(x, y);
          REQUIRE(s.box_sum(x0, y0, x1, y1) == direct);
        }
}

TEST_CASE("sums past 2^32 wrap and box sums stay exact") {
  // 4112^2 * 255 = 4,311,678,720 > 2^32: the bottom-right entries wrap.
  const int n = 4112;
  const GrayImage image(n, n, 255);
  const cpu::IntegralImage s = cpu::integral_image(image);
  const std::uint64_t total = std::uint64_t(n) * n * 255;
  REQUIRE(total > (std::uint64_t(1) << 32));
  CHECK(s.at(n, n) == static_cast<std::uint32_t>(total));  // wrapped
  // Boxes whose true sum is below 2^32 come out exact despite wrapped corners.
  CHECK(s.box_sum(100, 50, n, n) == std::uint64_t(n - 100) * (n - 50) * 255);
  CHECK(s.box_sum(7, 9, 4000, 4100) == std::uint64_t(4000 - 7) * (4100 - 9) * 255);
}

TEST_CASE("load_gray reads a bundled photo and converts colour with BT.601 weights") {
  const GrayImage box = load_gray(GLSURF_TEST_ASSET_DIR "/box.png");
  CHECK(box.width == 324);
  CHECK(box.height == 223);
  const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
  CHECK(graf.width == 800);
  CHECK(graf.height == 640);
}

TEST_CASE("load_gray rejects missing, non-image and too large files with the path") {
  CHECK_THROWS_WITH_AS(load_gray("/nonexistent/x.png"), doctest::Contains("/nonexistent/x.png"), Error);
  const std::string text = "not_an_image_for_glsurf_test.png";
  { std::ofstream(text) << "hello"; }
  CHECK_THROWS_WITH_AS(load_gray(text), doctest::Contains("not a supported image"), Error);
  std::remove(text.c_str());
  LoadLimits tiny;
  tiny.max_pixels = 1000;
  CHECK_THROWS_WITH_AS(load_gray(GLSURF_TEST_ASSET_DIR "/box.png", tiny), doctest::Contains("exceeds"), Error);
}

TEST_CASE("resize keeps a constant image constant and is the identity at the same size") {
  const GrayImage flat(37, 23, 91);
  const GrayImage big = resize(flat, 100, 61);
  for (auto p : big.pixels) REQUIRE(p == 91);
  const GrayImage image = test::random_image(13, 9, 3);
  CHECK(resize(image, 13, 9).pixels == image.pixels);
}

}  // TEST_SUITE
