// The resampler of glsurf warp and the rotation tests (io/warp.hpp), against
// exact pixel permutations and against analytic images.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/warp.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

constexpr double kPi = 3.14159265358979323846;

GrayImage pattern(int width, int height) {
  GrayImage image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      image.at(x, y) = static_cast<std::uint8_t>((x * 37 + y * 101 + x * y) % 256);
  return image;
}

// Turns by `degrees` counter-clockwise on screen about the centre, then moves
// by (tx, ty); the output has the input's size.
Homography turn(const GrayImage& image, double degrees, double tx = 0, double ty = 0) {
  const double a = degrees * kPi / 180, c = std::cos(a), s = std::sin(a);
  const double cx = (image.width - 1) / 2.0, cy = (image.height - 1) / 2.0;
  return {c, s, cx - c * cx - s * cy + tx, -s, c, cy + s * cx - c * cy + ty, 0, 0, 1};
}

// A band-limited image: two plane waves, periods about 4.3 and 7.3 pixels.
double wave(double x, double y) {
  return 128 + 50 * std::cos(2 * kPi * (0.2 * x + 0.09 * y) + 0.3) +
         40 * std::sin(2 * kPi * (-0.05 * x + 0.13 * y));
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("warp_image: whole-pixel moves and quarter turns copy pixels exactly") {
    const GrayImage image = pattern(37, 23);
    // A move by (3, -2): output (x, y) is input (x - 3, y + 2), 0 where that is outside.
    const std::vector<double> moved =
        warp_image(image, {1, 0, 3, 0, 1, -2, 0, 0, 1}, image.width, image.height);
    int wrong = 0;
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        const int sx = x - 3, sy = y + 2;
        const bool inside = sx >= 0 && sy >= 0 && sx < image.width && sy < image.height;
        wrong += std::abs(moved[static_cast<size_t>(y) * image.width + x] - (inside ? image.at(sx, sy) : 0)) >
                 1e-9;
      }
    CHECK(wrong == 0);
    // A quarter turn counter-clockwise into a 23 x 37 image: output (x, y) is
    // input (W - 1 - y, x).
    const Homography quarter = {0, 1, 0, -1, 0, image.width - 1.0, 0, 0, 1};
    const std::vector<double> turned = warp_image(image, quarter, image.height, image.width);
    wrong = 0;
    for (int y = 0; y < image.width; ++y)
      for (int x = 0; x < image.height; ++x)
        wrong += std::abs(turned[static_cast<size_t>(y) * image.height + x] -
                          image.at(image.width - 1 - y, x)) > 1e-9;
    CHECK(wrong == 0);
    // A half turn built from cos and sin (not exact zeros) rounds to the same pixels.
    const std::vector<double> half = warp_image(image, turn(image, 180), image.width, image.height);
    wrong = 0;
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x)
        wrong += std::lround(half[static_cast<size_t>(y) * image.width + x]) !=
                 image.at(image.width - 1 - x, image.height - 1 - y);
    CHECK(wrong == 0);
  }

  // Sampling a band-limited image at the turned points: the windowed sinc
  // reproduces the waves to within about two grey levels (2.1 measured; the
  // input itself is rounded to whole levels), where bilinear interpolation
  // loses up to a quarter of the shorter wave's amplitude (cos(pi / 4.3) =
  // 0.74 at a half-pixel phase; 14.8 levels measured).
  TEST_CASE("warp_image: a turned band-limited image matches the turned waves") {
    GrayImage image(96, 80);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x)
        image.at(x, y) = static_cast<std::uint8_t>(std::lround(wave(x, y)));
    const Homography h = turn(image, 30, 0.37, -0.21);
    const std::vector<double> out = warp_image(image, h, image.width, image.height);
    const Homography back = inverse(h);
    double worst = 0, worst_bilinear = 0;
    int compared = 0;
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        double sx = 0, sy = 0;
        apply(back, x, y, sx, sy);
        // Away from the border, where the clamped taps would change the sums.
        if (sx < 6 || sy < 6 || sx > image.width - 7 || sy > image.height - 7) continue;
        ++compared;
        const double truth = wave(sx, sy);
        worst = std::max(worst, std::abs(out[static_cast<size_t>(y) * image.width + x] - truth));
        const int x0 = static_cast<int>(sx), y0 = static_cast<int>(sy);
        const double fx = sx - x0, fy = sy - y0;
        const double bilinear = (1 - fx) * (1 - fy) * image.at(x0, y0) +
                                fx * (1 - fy) * image.at(x0 + 1, y0) + (1 - fx) * fy * image.at(x0, y0 + 1) +
                                fx * fy * image.at(x0 + 1, y0 + 1);
        worst_bilinear = std::max(worst_bilinear, std::abs(bilinear - truth));
      }
    INFO(compared << " pixels compared; largest error " << worst << ", bilinear " << worst_bilinear);
    REQUIRE(compared > 2000);
    CHECK(worst < 2.5);
    CHECK(worst_bilinear > 8);  // the tolerance tells the two apart
  }

  // Halving the size: a pixel-by-pixel checkerboard (the finest pattern an
  // image holds) cannot be shown at half the resolution and must become its
  // mean; sampling without widening the kernel gives back the pattern's phase,
  // all 0 or all 255 on a whole-pixel grid.
  TEST_CASE("warp_image: shrinking low-passes first") {
    GrayImage board(64, 64);
    for (int y = 0; y < board.height; ++y)
      for (int x = 0; x < board.width; ++x) board.at(x, y) = (x + y) % 2 ? 255 : 0;
    const Homography half = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1};  // output (x, y) samples input (2x, 2y)
    const std::vector<double> out = warp_image(board, half, 32, 32);
    double lowest = 255, highest = 0;
    for (int y = 4; y < 28; ++y)
      for (int x = 4; x < 28; ++x) {
        lowest = std::min(lowest, out[static_cast<size_t>(y) * 32 + x]);
        highest = std::max(highest, out[static_cast<size_t>(y) * 32 + x]);
      }
    INFO("interior values " << lowest << " .. " << highest);
    CHECK(lowest > 122.5);
    CHECK(highest < 132.5);
  }

  // A homography and its negative are the same map: the side of the line H
  // sends to infinity that the input lies on must not matter (before warp
  // refused a tilt whose horizon crosses the input, `glsurf warp
  // --perspective 3` wrote an H1to2p that, scaled to h[8] = 1, came out
  // negative, and the image was all 0).
  TEST_CASE("warp_image: outside the input is 0, and a homography's sign does not matter") {
    const GrayImage image(20, 20, 200);
    // Its inverse sends output (x, y) to (x, y) / (1 - x / 10): the preimage
    // is inside the input where x / w <= 19 and y / w <= 19 with w = 1 - x / 10
    // > 0; for x > 10 it lies at negative coordinates.
    const Homography tilt = {1, 0, 0, 0, 1, 0, 0.1, 0, 1};
    const std::vector<double> out = warp_image(image, tilt, 40, 20);
    int lit = 0, wrong = 0;
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 40; ++x) {
        const double v = out[static_cast<size_t>(y) * 40 + x];
        const double w = 1 - x / 10.0;
        const bool inside = w > 0 && x / w <= 19 && y / w <= 19;
        lit += v != 0;
        wrong += inside ? std::abs(v - 200) > 1e-9 : v != 0;
      }
    CHECK(lit > 0);
    CHECK(wrong == 0);
    const GrayImage photo = pattern(48, 40);
    const Homography h = {0.9, 0.2, 3, -0.1, 1.1, -2, 0.004, 0.001, 1};
    Homography negative = h;
    for (double& v : negative) v = -v;
    CHECK(warp_image(photo, negative, 48, 40) == warp_image(photo, h, 48, 40));
  }

  // Shrinking to a point: the kernel would span 10^5 input pixels each way;
  // capped at the image's side and summed over the pixels inside it, this
  // takes no time, and the one output pixel is the image's mean.
  TEST_CASE("warp_image: shrinking an image to a pixel averages the whole image, at once") {
    // The kernel is capped at the image's width, so this takes one pass over it.
    const GrayImage flat(64, 48, 90);
    const Homography tiny = {1e-5, 0, 0, 0, 1e-5, 0, 0, 0, 1};
    const std::vector<double> out = warp_image(flat, tiny, 4, 4);
    CHECK(out[0] == doctest::Approx(90).epsilon(1e-9));
    CHECK(out[1] == 0);
    // Not one tap: with every pixel 100..255 but the corner the output pixel
    // lands on (0), an average over the image stays far from 0 (the clamped
    // taps give the corner, row 0 and column 0 about a quarter each).
    GrayImage varied = test::random_image(64, 48, 9);
    for (auto& p : varied.pixels) p = static_cast<std::uint8_t>(100 + p * 155 / 255);
    varied.at(0, 0) = 0;
    const double corner = warp_image(varied, tiny, 4, 4)[0];
    CHECK(corner > 50);
    CHECK(corner < 255);
  }

}  // TEST_SUITE
