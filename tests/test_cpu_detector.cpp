// The CPU reference detector: hand-worked box-filter responses, synthetic
// Gaussian blobs of known position and scale, degenerate inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "support.hpp"

using namespace glsurf;

namespace {

using test::blob_image;

// Where the box-filter det(H) of a Gaussian blob of standard deviation sigma
// peaks over the filter side L, from the continuous model: each lobe's mean is
// the blob's mass over the lobe (products of normal CDFs, pixel i covering
// [i - 0.5, i + 0.5)) over its area; at the blob's centre Dxy = 0 and
// det = Dxx^2. Maximised over real lobe widths l (L = 3l) by golden section.
// This is independent of the detector's discrete sums and interpolation.
double box_peak_filter_side(double sigma) {
  auto cdf = [&](double v) { return 0.5 * std::erfc(-v / (sigma * std::sqrt(2.0))); };
  auto mass = [&](double a, double b) { return cdf(b) - cdf(a); };  // 1-D, [a, b)
  auto dxx = [&](double l) {
    const double c = (3 * l - 1) / 2;                // centre offset, (L - 1) / 2
    const double y0 = -(l - 1) - 0.5, y1 = l - 0.5;  // rows of height 2l - 1
    const double left = mass(-c - 0.5, -c + l - 0.5), mid = mass(-c + l - 0.5, -c + 2 * l - 0.5),
                 right = mass(-c + 2 * l - 0.5, c + 0.5);
    return (left - 2 * mid + right) * mass(y0, y1) / (l * (2 * l - 1));
  };
  double a = 1.0, b = 40.0 * sigma;
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 200; ++i) {
    const double m1 = b - g * (b - a), m2 = a + g * (b - a);
    if (dxx(m1) * dxx(m1) > dxx(m2) * dxx(m2))
      b = m2;
    else
      a = m1;
  }
  return 3 * (a + b) / 2;
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("filter sizes and steps follow Bay et al. / OpenSURF") {
    CHECK(filter_size(0, 0) == 9);
    CHECK(filter_size(0, 3) == 27);
    CHECK(filter_size(1, 0) == 15);
    CHECK(filter_size(1, 3) == 51);
    CHECK(filter_size(2, 0) == 27);
    CHECK(filter_size(2, 3) == 99);
    CHECK(filter_size(3, 1) == 99);
    CHECK(sample_step(0, 1) == 1);
    CHECK(sample_step(3, 1) == 8);
    CHECK(sample_step(0, 2) == 2);  // OpenSURF's init_sample
    CHECK(sample_step(3, 2) == 16);
  }

  TEST_CASE("box-filter responses, worked by hand for L = 9") {
    // A light vertical bar 3 px wide (x = 3..5) under the centre of a 9x9 filter:
    // only the middle Dxx lobe sees it: Dxx = -2 * (3 * 5 * 10) / 15 = -20.
    GrayImage bar(9, 9, 0);
    for (int y = 0; y < 9; ++y)
      for (int x = 3; x < 6; ++x) bar.at(x, y) = 10;
    const cpu::HessianResponse r = cpu::hessian_at(cpu::integral_image(bar), 4, 4, 9);
    CHECK(r.dxx == doctest::Approx(-20.0f));
    CHECK(r.dyy == doctest::Approx(0.0f));
    CHECK(r.dxy == doctest::Approx(0.0f));

    // One pixel of 81 at (2, 2): in the top-left Dxy square (area 9), the left
    // Dxx lobe and the top Dyy lobe (area 15 each).
    GrayImage dot(9, 9, 0);
    dot.at(2, 2) = 81;
    const cpu::HessianResponse d = cpu::hessian_at(cpu::integral_image(dot), 4, 4, 9);
    CHECK(d.dxx == doctest::Approx(81.0f / 15));
    CHECK(d.dyy == doctest::Approx(81.0f / 15));
    CHECK(d.dxy == doctest::Approx(9.0f));
    const cpu::HessianLayer layer = cpu::hessian_layer(cpu::integral_image(dot), 9, 1);
    CHECK(layer.valid[4 * 9 + 4] == 1);
    CHECK(layer.valid[4 * 9 + 3] == 0);  // the filter would leave the image
    // Dxy's weight for lobe 3 is w(3) = 3 / 10 (0.9^2 on the raw sums: 0.81 * 81 / 225 = 0.2916).
    CHECK(cpu::dxy_weight(3) == doctest::Approx(0.3));
    CHECK(layer.det_at(4, 4) == doctest::Approx(5.4 * 5.4 - 0.3 * 81));
  }

  TEST_CASE("det(H) of an elongated blob hardly changes when the blob turns by 45 degrees") {
    // A dark elongated Gaussian blob (sigma 6 x 3 px) on a grey field, along x
    // and turned by 45 degrees, and det(H) at its centre for L = 21 and 27. Along
    // the axes Dxy = 0; turned, Dxx = Dyy and Dxy carries the anisotropy, so
    // det depends on the angle unless Dxy is weighted to balance the filters.
    // With w(l) the two dets differ by a few percent; with 0.81 on the
    // lobe-normalised Dxy the turned blob's det is far lower.
    auto blob = [](double angle) {
      GrayImage im(97, 97, 0);
      const double c = std::cos(angle), s = std::sin(angle);
      for (int y = 0; y < 97; ++y)
        for (int x = 0; x < 97; ++x) {
          const double u = c * (x - 48) + s * (y - 48), v = -s * (x - 48) + c * (y - 48);
          im.at(x, y) =
              static_cast<std::uint8_t>(std::lround(200 - 150 * std::exp(-u * u / 72 - v * v / 18)));
        }
      return cpu::integral_image(im);
    };
    const cpu::IntegralImage along = blob(0), turned = blob(std::atan(1.0));
    for (int filter : {21, 27}) {
      const cpu::HessianResponse a = cpu::hessian_at(along, 48, 48, filter);
      const cpu::HessianResponse t = cpu::hessian_at(turned, 48, 48, filter);
      const float w = cpu::dxy_weight(filter / 3);
      const double det_a = a.dxx * a.dyy - w * a.dxy * a.dxy, det_t = t.dxx * t.dyy - w * t.dxy * t.dxy;
      const double old_a = a.dxx * a.dyy - 0.81 * a.dxy * a.dxy, old_t = t.dxx * t.dyy - 0.81 * t.dxy * t.dxy;
      MESSAGE("L = " << filter << ": det along " << det_a << ", turned " << det_t << "; with 0.81: " << old_a
                     << ", " << old_t);
      CHECK(std::abs(det_t / det_a - 1) < 0.1);
      CHECK(old_t / old_a < 0.8);
    }
  }

  TEST_CASE("the box filters select a smaller scale than their nominal sigma = 1.2 L / 9") {
    // Scale selection with box filters peaks near L = 5 sigma, not at the
    // L = 7.5 sigma that the nominal 1.2 L / 9 suggests (see the model above).
    for (const double sigma : {2.0, 4.0, 8.0}) {
      const double peak = box_peak_filter_side(sigma);
      CHECK(peak > 4.5 * sigma);
      CHECK(peak < 6.0 * sigma);
    }
  }

  TEST_CASE("Gaussian blobs are found at their position and scale, with the Laplacian's sign") {
    // Position within 0.5 px; size within 10 % (15 %, below) of where the
    // continuous model of the same box filters peaks; both contrasts; centres off
    // the pixel grid; the first octave sampled at every pixel (OpenCV) and at
    // every other one (OpenSURF).
    for (const int first_step : {1, 2}) {
      for (const double sigma : {3.0, 4.5, 7.0, 10.0}) {
        for (const double amplitude : {150.0, -150.0}) {
          const double cx = 100.3, cy = 90.6;
          const GrayImage image = blob_image(220, 200, cx, cy, sigma, amplitude > 0 ? 40 : 210, amplitude);
          DetectorConfig config;
          config.hessian_threshold = 10;
          config.first_step = first_step;
          const std::vector<KeyPoint> ks = cpu::detect(image, config);
          INFO("first step " << first_step << ", sigma " << sigma << ", amplitude " << amplitude << ", "
                             << ks.size() << " keypoints");
          REQUIRE(!ks.empty());
          const KeyPoint& k = ks.front();  // the strongest
          CHECK(std::hypot(k.x - cx, k.y - cy) < 0.5);
          const double expected = box_peak_filter_side(sigma);
          INFO("size " << k.size << ", model " << expected);
          // With the first octave sampled every other pixel, the sigma = 10 blob is
          // found in octave 2 at a step of 8, and its nearest sample lies 3.7 px
          // off the centre: the scale fit there is 12 % off (8 % at a step of 4).
          CHECK(std::abs(k.size - expected) < (first_step == 1 ? 0.1 : 0.15) * expected);
          CHECK(k.laplacian == (amplitude > 0 ? -1 : 1));
        }
      }
    }
  }

  TEST_CASE("configurations whose filter sides or steps would leave int are refused") {
    // 31 octaves (or a first step of 4 with 29) overflowed 2 << octave and
    // first_step << octave, and the detector read out of bounds.
    for (const auto& c : {std::pair{31, 4}, std::pair{29, 1}, std::pair{17, 1}, std::pair{4, 65}}) {
      const int octaves = c.first, step = c.second;  // not bindings: INFO's lambda captures them (C++20)
      DetectorConfig config;
      config.n_octaves = octaves;
      config.first_step = step;
      INFO(octaves << " octaves, first step " << step);
      CHECK(!valid_config(config));
      CHECK_THROWS_AS(cpu::detect(GrayImage(64, 64, 7), config), std::logic_error);
    }
    DetectorConfig most;
    most.n_octaves = 16;
    most.first_step = 64;
    most.n_octave_layers = 64;
    CHECK(valid_config(most));
  }

  TEST_CASE("filters whose 32-bit box sums would wrap are refused where they fit in the image") {
    // The bounds: 255 l (2l - 1) below 2^32 (a lobe's true sum), and 510 l
    // (2l - 1) below 2^31 (the GPU's signed combination), each the largest such l.
    const auto lobe = [](long long l) { return l * (2 * l - 1); };
    CHECK(255 * lobe(kMaxExactLobe) < (1LL << 32));
    CHECK(255 * lobe(kMaxExactLobe + 1) >= (1LL << 32));
    CHECK(510 * lobe(kMaxExactLobeSigned) < (1LL << 31));
    CHECK(510 * lobe(kMaxExactLobeSigned + 1) >= (1LL << 31));
    // 8 octaves of 10 layers: octave 7's filters reach side 9219 (lobe 3073);
    // the next largest of all is 8451 (lobe 2817).
    DetectorConfig config;
    config.n_octaves = 8;
    config.n_octave_layers = 10;
    REQUIRE(valid_config(config));
    REQUIRE(filter_size(7, 11) == 9219);
    const std::string why =
        filter_sum_problem(9219, 9300, config, kMaxExactLobe, "the CPU reference", "fewer");
    CHECK(why == "filter side 9219 (octave 7) is beyond the CPU reference's exact 32-bit box sums; fewer");
    CHECK(filter_sum_problem(9218, 20000, config, kMaxExactLobe, "x", "y").empty());  // it does not fit
    // The GPU's bound, 1451, stops octave 6's side 4611 (lobe 1537) first.
    CHECK(filter_sum_problem(9219, 9219, config, kMaxExactLobeSigned, "the GPU", "z")
              .find("filter side 4611 (octave 6)") == 0);
    CHECK(filter_sum_problem(4610, 9219, config, kMaxExactLobeSigned, "the GPU", "z").empty());
  }

  TEST_CASE("a constant image has no keypoints; a too small one is an error") {
    CHECK(cpu::detect(GrayImage(64, 48, 128), DetectorConfig{}).empty());
    const int side = min_image_side(DetectorConfig{});
    CHECK_NOTHROW(cpu::detect(GrayImage(side, side, 7), DetectorConfig{}));
    CHECK_THROWS_WITH_AS(cpu::detect(GrayImage(side - 1, 100, 7), DetectorConfig{}),
                         doctest::Contains("smaller than the smallest filter"), Error);
    // Every other pixel: the middle sample of a 3x3 block at x = 2p needs
    // 2 (p - 1) >= 10 (the side-21 filter's half-width) and 2 (p + 1) + 10 <= W - 1,
    // so p = 6 and W = 25; a 25-pixel image has that one block, a 24-pixel one none.
    DetectorConfig coarse;
    coarse.first_step = 2;
    CHECK(min_image_side(coarse) == 25);
    CHECK(min_image_side(DetectorConfig{}) == 23);  // every pixel: p = 11, W = 12 + 10 + 1
    // ... and that block finds a blob centred on it.
    coarse.hessian_threshold = 1;
    const std::vector<KeyPoint> ks = cpu::detect(blob_image(25, 25, 12.0, 12.0, 2.5, 40, 150), coarse);
    REQUIRE(ks.size() == 1);
    CHECK(std::hypot(ks[0].x - 12.0, ks[0].y - 12.0) < 0.5);
    CHECK_THROWS_AS(cpu::detect(GrayImage(24, 40, 7), coarse), Error);
  }

  TEST_CASE("an image whose pixels are not width x height is an error, not read past its end") {
    GrayImage image(64, 48, 128);
    image.pixels.resize(100);
    CHECK_THROWS_WITH_AS(cpu::detect(image, DetectorConfig{}),
                         doctest::Contains("image of 64x48 has 100 pixel values instead of 3072"), Error);
    CHECK_THROWS_WITH_AS(cpu::integral_image(image), doctest::Contains("has 100 pixel values"), Error);
    image.pixels.clear();
    CHECK_THROWS_WITH_AS(cpu::detect(image, DetectorConfig{}), doctest::Contains("has 0 pixel values"),
                         Error);
    CHECK(image_layout_problem(GrayImage(64, 48)).empty());
    CHECK(image_layout_problem(GrayImage())
              .empty());  // 0 x 0 with no pixels is whole (and too small to detect in)
    GrayImage negative;
    negative.width = -2;
    CHECK(image_layout_problem(negative) == "image of -2x0 has 0 pixel values");
  }

  TEST_CASE("host memory: an image that cannot fit is refused before the CPU backend starts") {
    // Octave 0's four layers at 9 bytes a sample, the image, its integral image
    // and 2 for the keypoints: 43 bytes a pixel, 721 MB at 4096 x 4096 (41 bytes a
    // pixel measured there); every other pixel sampled: 16 bytes a pixel.
    DetectorConfig config;
    CHECK(cpu::bytes_per_pixel(config) == 43);
    CHECK(cpu::host_memory_problem(4096, 4096, config, 0.73e9).empty());
    const std::string why = cpu::host_memory_problem(4096, 4096, config, 0.60e9);
    CHECK(why == "image of 4096x4096 needs about 0.7 GB of memory on the CPU backend; 0.6 GB is available");
    CHECK(cpu::host_memory_problem(16384, 16384, config, 24e9).empty());
    CHECK(cpu::host_memory_problem(16384, 16384, config, -1).empty());  // unknown: no refusal
    config.first_step = 2;
    CHECK(cpu::bytes_per_pixel(config) == 16);
    config.first_step = 1;
    config.n_octave_layers = 4;
    CHECK(cpu::bytes_per_pixel(config) == 61);
  }

}  // TEST_SUITE
