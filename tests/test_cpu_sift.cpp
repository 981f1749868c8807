// The CPU reference SIFT (src/cpu/sift.hpp, docs/notes/sift.md): the scale
// space by hand on tiny images, synthetic blobs whose position, scale and DoG
// value follow from the continuous model, edge rejection on a long line,
// exact rotations and an exact brightness change of a real image, and the
// descriptor's normalisation by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/sift.hpp"
#include "glsurf/image.hpp"
#include "support.hpp"
#include "surf/keypoint.hpp"

using namespace glsurf;
namespace sift = glsurf::cpu::sift;

namespace {

using test::blob_image;

GrayImage crop(const GrayImage& image, int x0, int y0, int w, int h) {
  GrayImage out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out.at(x, y) = image.at(x0 + x, y0 + y);
  return out;
}

// A 257 x 257 piece of graf1: 257 = 2^8 + 1 keeps every octave's grid (pixels
// at multiples of 2^o, o <= 6 here) symmetric under flips and transposes, so
// that rotating by 90 or 180 degrees rotates the whole pyramid.
GrayImage graf_piece(int side = 257) {
  static const GrayImage graf = load_gray(GLSURF_TEST_ASSET_DIR "/graf1.png");
  return crop(graf, 300, 200, side, side);
}

// Counter-clockwise as seen on screen: pixel (x, y) goes to (y, W - 1 - x).
GrayImage rotate_90(const GrayImage& image) {
  GrayImage out(image.height, image.width);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) out.at(y, image.width - 1 - x) = image.at(x, y);
  return out;
}

GrayImage rotate_180(const GrayImage& image) {
  GrayImage out(image.width, image.height);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) out.at(image.width - 1 - x, image.height - 1 - y) = image.at(x, y);
  return out;
}

float angle_difference(float a, float b) {
  const float d = std::fmod(std::abs(a - b), 360.0f);
  return std::min(d, 360.0f - d);
}

double distance2(const float* a, const float* b, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  return sum;
}

// The entry of `set` at `(x, y)` within `tolerance` px and of size within 5 %
// (and, for angle >= 0, of angle within 5 degrees), or -1.
int partner(const std::vector<KeyPoint>& set, float x, float y, float size, float angle, float tolerance) {
  int best = -1;
  double best_d = tolerance;
  for (size_t j = 0; j < set.size(); ++j) {
    const KeyPoint& k = set[j];
    const double d = std::hypot(k.x - x, k.y - y);
    if (d > best_d || std::abs(k.size / size - 1) > 0.05f) continue;
    if (angle >= 0 && angle_difference(k.angle, angle) > 5) continue;
    best = static_cast<int>(j);
    best_d = d;
  }
  return best;
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("sift: gaussian_kernel has radius ceil(4 sigma), sums to 1 and follows exp(-k^2 / (2 sigma^2))") {
    for (double sigma : {0.3, 1.0, 1.2489995996796797, 1.6, 3.7}) {
      const std::vector<float> w = sift::gaussian_kernel(sigma);
      const int r = static_cast<int>(std::ceil(4 * sigma));
      REQUIRE(w.size() == static_cast<size_t>(2 * r + 1));
      double sum = 0;
      for (float v : w) sum += v;
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
      for (int k = -r; k <= r; ++k) {
        CHECK(w[static_cast<size_t>(k + r)] / w[static_cast<size_t>(r)] ==
              doctest::Approx(std::exp(-k * k / (2 * sigma * sigma))).epsilon(1e-5));
        CHECK(w[static_cast<size_t>(k + r)] == w[static_cast<size_t>(r - k)]);
      }
    }
  }

  TEST_CASE("sift: the blur of an impulse is the kernel's outer product, of a constant the constant") {
    const double sigma = 1.5;
    const std::vector<float> w = sift::gaussian_kernel(sigma);
    const int r = static_cast<int>(w.size() / 2);
    sift::Image impulse(41, 31);
    impulse.at(20, 15) = 1.0f;
    const sift::Image b = sift::blur(impulse, sigma);
    for (int y = 0; y < b.height; ++y)
      for (int x = 0; x < b.width; ++x) {
        const int dx = x - 20, dy = y - 15;
        const double expected =
            std::abs(dx) <= r && std::abs(dy) <= r
                ? static_cast<double>(w[static_cast<size_t>(dx + r)]) * w[static_cast<size_t>(dy + r)]
                : 0.0;
        CHECK(b.at(x, y) == doctest::Approx(expected).epsilon(1e-6));
      }
    // In a corner, the edge replicated: the weights of taps beyond the edge
    // land on the corner pixel, (sum of w[k], k <= 0)^2 there.
    sift::Image corner(20, 20);
    corner.at(0, 0) = 1.0f;
    double half = 0;
    for (int k = 0; k <= r; ++k) half += w[static_cast<size_t>(k)];
    CHECK(sift::blur(corner, sigma).at(0, 0) == doctest::Approx(half * half).epsilon(1e-6));

    sift::Image flat(23, 17);
    std::fill(flat.pixels.begin(), flat.pixels.end(), 0.37f);
    for (float v : sift::blur(flat, 2.2).pixels) CHECK(v == doctest::Approx(0.37).epsilon(1e-6));
  }

  TEST_CASE("sift: octave sizes, and the automatic count is OpenCV's") {
    SiftConfig config;  // first_octave -1: doubled
    const std::vector<sift::OctaveSize> graf = sift::octave_sizes(800, 640, config);
    const int expected[][3] = {{-1, 1600, 1280}, {0, 800, 640}, {1, 400, 320}, {2, 200, 160}, {3, 100, 80},
                               {4, 50, 40},      {5, 25, 20},   {6, 13, 10},   {7, 7, 5}};
    REQUIRE(graf.size() == 9);
    for (size_t k = 0; k < graf.size(); ++k) {
      CHECK(graf[k].octave == expected[k][0]);
      CHECK(graf[k].width == expected[k][1]);
      CHECK(graf[k].height == expected[k][2]);
    }
    SiftConfig plain;
    plain.first_octave = 0;
    const std::vector<sift::OctaveSize> odd = sift::octave_sizes(257, 100, plain);
    const int expected_odd[][3] = {{0, 257, 100}, {1, 129, 50}, {2, 65, 25}, {3, 33, 13}, {4, 17, 7}};
    REQUIRE(odd.size() == 5);
    for (size_t k = 0; k < odd.size(); ++k) {
      CHECK(odd[k].octave == expected_odd[k][0]);
      CHECK(odd[k].width == expected_odd[k][1]);
      CHECK(odd[k].height == expected_odd[k][2]);
    }
    // OpenCV (sift.dispatch.cpp): cvRound(log(min(base.cols, base.rows)) /
    // log(2.) - 2) - firstOctave, base the first octave's image.
    for (int first : {-1, 0}) {
      SiftConfig c;
      c.first_octave = first;
      for (int w : {40, 64, 100, 257, 362, 363, 800, 1023, 3000}) {
        for (int h : {45, 181, 640, 2048}) {
          const int base = std::min(w, h) * (first < 0 ? 2 : 1);
          const int opencv = static_cast<int>(std::lround(std::log(base) / std::log(2.0) - 2)) - first;
          CHECK(static_cast<int>(sift::octave_sizes(w, h, c).size()) == opencv);
        }
      }
    }
    config.n_octaves = 3;
    CHECK(sift::octave_sizes(800, 640, config).size() == 3);
  }

  TEST_CASE("sift: level and increment sigmas") {
    SiftConfig config;
    for (int i = 0; i <= 5; ++i)
      CHECK(sift::level_sigma(config, i) == doctest::Approx(1.6 * std::pow(2.0, i / 3.0)));
    CHECK(sift::increment_sigma(config, 0) == doctest::Approx(std::sqrt(1.6 * 1.6 - 1.0)));
    config.first_octave = 0;
    CHECK(sift::increment_sigma(config, 0) == doctest::Approx(std::sqrt(1.6 * 1.6 - 0.25)));
    // Increments compose: sigma_0^2 + sum of squared increments = sigma_i^2.
    double variance = 1.6 * 1.6;
    for (int i = 1; i <= 5; ++i) {
      variance += sift::increment_sigma(config, i) * sift::increment_sigma(config, i);
      CHECK(std::sqrt(variance) == doctest::Approx(1.6 * std::pow(2.0, i / 3.0)));
    }
  }

  TEST_CASE("sift: doubling and downsampling, by hand") {
    GrayImage tiny(3, 2);
    const int grey[2][3] = {{0, 50, 100}, {250, 150, 10}};
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) tiny.at(x, y) = static_cast<std::uint8_t>(grey[y][x]);
    // Grey levels of the doubled image: rows 0 and 2 the input's rows with
    // means between, row 1 the mean of rows 0 and 2, row 3 row 2 again.
    const double expected[4][6] = {{0, 25, 50, 75, 100, 100},
                                   {125, 112.5, 100, 77.5, 55, 55},
                                   {250, 200, 150, 80, 10, 10},
                                   {250, 200, 150, 80, 10, 10}};
    const sift::Image doubled = sift::octave_base(tiny, SiftConfig{});
    REQUIRE(doubled.width == 6);
    REQUIRE(doubled.height == 4);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 6; ++x)
        CHECK(doubled.at(x, y) == doctest::Approx(expected[y][x] / 255).epsilon(1e-6));
    SiftConfig plain;
    plain.first_octave = 0;
    const sift::Image scaled = sift::octave_base(tiny, plain);
    REQUIRE(scaled.width == 3);
    CHECK(scaled.at(1, 1) == doctest::Approx(150.0 / 255));

    sift::Image five(5, 3);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x) five.at(x, y) = static_cast<float>(x + 10 * y);
    const sift::Image half = sift::downsample(five);
    REQUIRE(half.width == 3);
    REQUIRE(half.height == 2);
    const float expected_half[2][3] = {{0, 2, 4}, {20, 22, 24}};
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) CHECK(half.at(x, y) == expected_half[y][x]);
  }

  TEST_CASE("sift: the pyramid's DoG images are differences of its Gaussian images") {
    SiftConfig config;
    const sift::Pyramid p = sift::build_pyramid(blob_image(40, 30, 20, 15, 3, 100, 80), config);
    REQUIRE(p.octaves.size() == 5);  // round(log2(30))
    REQUIRE(p.gaussian.size() == 5 * 6);
    REQUIRE(p.dog.size() == 5 * 5);
    for (int k = 0; k < 5; ++k) {
      for (int i = 0; i < 5; ++i)
        for (size_t j = 0; j < p.diff(k, i).pixels.size(); ++j)
          REQUIRE(p.diff(k, i).pixels[j] == p.gauss(k, i + 1).pixels[j] - p.gauss(k, i).pixels[j]);
      if (k > 0) {
        const sift::Image& first = p.gauss(k, 0);
        for (int y = 0; y < first.height; ++y)
          for (int x = 0; x < first.width; ++x) REQUIRE(first.at(x, y) == p.gauss(k - 1, 3).at(2 * x, 2 * y));
      }
    }
  }

  TEST_CASE("sift: Gaussian blobs, dark and light, at their position, scale and DoG value") {
    // The scale-normalised Laplacian sigma^2 (Lxx + Lyy) of a Gaussian blob of
    // standard deviation b peaks at sigma = b. The DoG between sigma and
    // k sigma (k = 2^(1/s)) at the blob's centre is A b^2 (1 / (b^2 + k^2
    // sigma^2) - 1 / (b^2 + sigma^2)) for amplitude A, which peaks where
    // sigma^2 = b^2 / k, with value A (1 - k) / (1 + k): the keypoint's sigma
    // (that of the lower level of its DoG) is b / sqrt(k), 11 % below b for
    // s = 3. The input counts as blurred by 0.5 px already: b^2 -> b^2 - 0.25.
    SiftConfig config;
    const double k = std::pow(2.0, 1.0 / config.n_octave_layers);
    for (double b : {2.0, 3.0, 4.5, 6.0}) {
      for (double amplitude : {-100.0, 100.0}) {
        CAPTURE(b);
        CAPTURE(amplitude);
        const double cx = 50.3, cy = 48.7;
        const std::vector<KeyPoint> kps =
            sift::detect(blob_image(101, 101, cx, cy, b, 128, amplitude), config);
        REQUIRE(!kps.empty());
        const KeyPoint& kp = kps.front();
        CHECK(std::abs(kp.x - cx) < 0.05);
        CHECK(std::abs(kp.y - cy) < 0.05);
        CHECK(kp.laplacian == (amplitude < 0 ? 1 : -1));  // dark on light: a DoG maximum
        const double sigma = kp.size / 2;
        CHECK(sigma == doctest::Approx(std::sqrt(b * b - 0.25) / std::sqrt(k)).epsilon(0.03));
        CHECK(sigma == doctest::Approx(b).epsilon(0.13));
        CHECK(kp.response == doctest::Approx(std::abs(amplitude) / 255 * (k - 1) / (k + 1)).epsilon(0.05));
        for (size_t i = 1; i < kps.size(); ++i) CHECK(kps[i].response < 0.5f * kp.response);
      }
    }
  }

  TEST_CASE("sift: no keypoint along a long straight line, while a blob beside it is found") {
    // A light line 1.5 px wide at 10 degrees through the whole image and a dark
    // blob below it. Sampling makes the DoG ripple along the line: with the
    // edge test off (r huge) those ripples are keypoints; with r = 10 none is.
    const double a = 10 * 3.14159265358979323846 / 180, nx = -std::sin(a), ny = std::cos(a);
    GrayImage image(160, 120);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        const double d = x * nx + (y - 40) * ny, bx = x - 120.4, by = y - 90.6;
        const double v =
            128 + 80 * std::exp(-d * d / (2 * 1.5 * 1.5)) - 90 * std::exp(-(bx * bx + by * by) / 18);
        image.at(x, y) = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
      }
    auto on_line = [&](const std::vector<KeyPoint>& kps) {
      return std::count_if(kps.begin(), kps.end(),
                           [&](const KeyPoint& k) { return std::abs(k.x * nx + (k.y - 40) * ny) < 4; });
    };
    auto at_blob = [&](const std::vector<KeyPoint>& kps) {
      return std::count_if(kps.begin(), kps.end(),
                           [&](const KeyPoint& k) { return std::hypot(k.x - 120.4, k.y - 90.6) < 0.1; });
    };
    SiftConfig config;
    const std::vector<KeyPoint> kps = sift::detect(image, config);
    CHECK(on_line(kps) == 0);
    CHECK(at_blob(kps) == 1);
    config.edge_threshold = 1e6f;
    const std::vector<KeyPoint> no_edge_test = sift::detect(image, config);
    CHECK(on_line(no_edge_test) >= 10);
    CHECK(at_blob(no_edge_test) == 1);
  }

  TEST_CASE("sift: keypoint fields, OpenCV's octave packing and from_keypoint") {
    SiftConfig config;
    const GrayImage image = graf_piece(129);
    const sift::Pyramid p = sift::build_pyramid(image, config);
    const std::vector<sift::Extremum> extrema = sift::find_extrema(p, config);
    REQUIRE(extrema.size() > 20);
    int doubled = 0;
    for (const sift::Extremum& e : extrema) {
      const KeyPoint& kp = e.keypoint;
      const int o = p.octaves[static_cast<size_t>(e.k)].octave;
      doubled += o == -1;
      CHECK(std::abs(e.x - e.px) <= 0.5f);
      CHECK(std::abs(e.y - e.py) <= 0.5f);
      CHECK(std::abs(e.scale_offset) < 0.5f);
      CHECK(e.layer >= 1);
      CHECK(e.layer <= config.n_octave_layers);
      CHECK(kp.x == std::ldexp(e.x, o));
      CHECK(kp.size == std::ldexp(2 * e.sigma, o));
      CHECK(e.sigma == doctest::Approx(1.6 * std::pow(2.0, (e.layer + e.scale_offset) / 3)).epsilon(1e-6));
      CHECK(kp.angle == -1);
      CHECK(kp.response == std::abs(e.value));
      CHECK(kp.response * 3 >= 0.04f);
      CHECK(kp.laplacian == (e.value > 0 ? 1 : -1));
      CHECK((kp.octave & 255) == (o & 255));  // -1: 255
      CHECK(((kp.octave >> 8) & 255) == e.layer);
      CHECK(((kp.octave >> 16) & 255) == std::lround((e.scale_offset + 0.5) * 255));
      const sift::Extremum back = sift::from_keypoint(kp, p, config);
      CHECK(back.k == e.k);
      CHECK(back.layer == e.layer);
      CHECK(back.x == e.x);
      CHECK(back.y == e.y);
      CHECK(back.sigma == e.sigma);
      CHECK(std::abs(back.scale_offset - e.scale_offset) <= 0.5f / 255 + 1e-6f);
    }
    CHECK(doubled > 0);
    // No two extrema at the same sample.
    for (size_t i = 0; i < extrema.size(); ++i)
      for (size_t j = i + 1; j < extrema.size(); ++j)
        CHECK_FALSE((extrema[i].k == extrema[j].k && extrema[i].layer == extrema[j].layer &&
                     extrema[i].px == extrema[j].px && extrema[i].py == extrema[j].py));
    KeyPoint unknown_octave = extrema.front().keypoint;
    unknown_octave.octave = 9;
    CHECK_THROWS_AS(sift::from_keypoint(unknown_octave, p, config), Error);
    KeyPoint outside = extrema.front().keypoint;
    outside.x = 1000;
    CHECK_THROWS_AS(sift::from_keypoint(outside, p, config), Error);
    KeyPoint no_size = extrema.front().keypoint;
    no_size.size = 0;
    CHECK_THROWS_AS(sift::from_keypoint(no_size, p, config), Error);
    // A huge keypoint takes the whole image, no more (and no longer).
    KeyPoint huge = extrema.front().keypoint;
    huge.size = 1e30f;
    huge.angle = 0;
    KeyPoint huge_unoriented = huge;
    huge_unoriented.angle = -1;
    const Features described = sift::compute(image, {huge, huge_unoriented}, config);
    CHECK(described.keypoints.size() >= 1);
    CHECK(described.keypoints.size() <= 1 + sift::kMaxOrientations);
  }

  TEST_CASE(
      "sift: two runs are bit-identical; compute on detect's keypoints gives detect_and_compute's entries") {
    SiftConfig config;
    const GrayImage image = graf_piece(161);
    const Features a = sift::detect_and_compute(image, config);
    const Features b = sift::detect_and_compute(image, config);
    REQUIRE(a.keypoints.size() > 50);
    REQUIRE(a.keypoints.size() == b.keypoints.size());
    CHECK(std::memcmp(a.keypoints.data(), b.keypoints.data(), a.keypoints.size() * sizeof(KeyPoint)) == 0);
    CHECK(a.descriptors == b.descriptors);
    CHECK(a.descriptor_size == 128);

    Features c = sift::compute(image, sift::detect(image, config), config);
    sort_by_strength(c);
    REQUIRE(c.keypoints.size() == a.keypoints.size());
    CHECK(std::memcmp(a.keypoints.data(), c.keypoints.data(), a.keypoints.size() * sizeof(KeyPoint)) == 0);
    CHECK(a.descriptors == c.descriptors);

    // A given angle is kept: one entry.
    std::vector<KeyPoint> given(a.keypoints.begin(), a.keypoints.begin() + 5);
    const Features kept = sift::compute(image, given, config);
    REQUIRE(kept.keypoints.size() == 5);
    for (size_t i = 0; i < 5; ++i) {
      CHECK(kept.keypoints[i].angle == given[i].angle);
      CHECK(std::equal(kept.descriptor(i), kept.descriptor(i) + 128, a.descriptor(i)));
    }
  }

  TEST_CASE("sift: max_features keeps the strongest entries") {
    SiftConfig config;
    const GrayImage image = graf_piece(161);
    const std::vector<KeyPoint> all = sift::detect(image, config);
    const Features every = sift::detect_and_compute(image, config);
    config.max_features = 20;
    const std::vector<KeyPoint> some = sift::detect(image, config);
    REQUIRE(some.size() == 20);
    CHECK(std::memcmp(some.data(), all.data(), 20 * sizeof(KeyPoint)) == 0);
    const Features few = sift::detect_and_compute(image, config);
    REQUIRE(few.keypoints.size() == 20);
    CHECK(std::memcmp(few.keypoints.data(), every.keypoints.data(), 20 * sizeof(KeyPoint)) == 0);
    CHECK(std::equal(few.descriptors.begin(), few.descriptors.end(), every.descriptors.begin()));
  }

  TEST_CASE("sift: rotations by 90 and 180 degrees move keypoints with the image and keep descriptors") {
    SiftConfig config;
    const GrayImage image = graf_piece();
    const int n = image.width;  // square
    const Features original = sift::detect_and_compute(image, config);
    REQUIRE(original.keypoints.size() > 200);
    for (int turn : {90, 180}) {
      CAPTURE(turn);
      const Features rotated =
          sift::detect_and_compute(turn == 90 ? rotate_90(image) : rotate_180(image), config);
      int located = 0, agreeing = 0;
      for (size_t i = 0; i < original.keypoints.size(); ++i) {
        const KeyPoint& k = original.keypoints[i];
        const float x = turn == 90 ? k.y : n - 1 - k.x, y = turn == 90 ? n - 1 - k.x : n - 1 - k.y;
        const int j = partner(rotated.keypoints, x, y, k.size, std::fmod(k.angle + turn, 360.0f), 1.0f);
        if (j < 0) continue;
        ++located;
        // The partner is the nearest neighbour of the descriptor among all.
        size_t nearest = 0;
        double best = 1e9;
        for (size_t m = 0; m < rotated.keypoints.size(); ++m) {
          const double d = distance2(original.descriptor(i), rotated.descriptor(m), 128);
          if (d < best) best = d, nearest = m;
        }
        agreeing += nearest == static_cast<size_t>(j);
      }
      const double total = static_cast<double>(original.keypoints.size());
      MESSAGE(turn << " degrees: " << located << " of " << total << " entries with a partner, " << agreeing
                   << " of them nearest neighbours");
      CHECK(located >= 0.9 * total);
      CHECK(agreeing >= 0.9 * located);
    }
  }

  TEST_CASE("sift: I' = I / 2 + 64 keeps the surviving keypoints and their descriptors") {
    // Even grey levels make I / 2 exact. D scales by 1/2, so the keypoints of
    // I' at threshold T are those of I at 2 T: the brighter image's at T, a
    // subset, stand at the same places with half the response.
    GrayImage even = graf_piece(161);
    for (std::uint8_t& v : even.pixels) v = static_cast<std::uint8_t>(v & ~1);
    GrayImage dimmed = even;
    for (std::uint8_t& v : dimmed.pixels) v = static_cast<std::uint8_t>(v / 2 + 64);
    SiftConfig config;
    const Features a = sift::detect_and_compute(even, config);
    const Features b = sift::detect_and_compute(dimmed, config);
    REQUIRE(b.keypoints.size() > 30);
    CHECK(b.keypoints.size() < a.keypoints.size());
    int same = 0;
    for (size_t i = 0; i < b.keypoints.size(); ++i) {
      const KeyPoint& k = b.keypoints[i];
      const int j = partner(a.keypoints, k.x, k.y, k.size, k.angle, 0.01f);
      if (j < 0) continue;
      const KeyPoint& m = a.keypoints[static_cast<size_t>(j)];
      const bool close =
          std::abs(m.size - k.size) < 1e-3f * k.size && angle_difference(m.angle, k.angle) < 0.01f &&
          std::abs(m.response - 2 * k.response) < 1e-3f * m.response &&
          std::sqrt(distance2(a.descriptor(static_cast<size_t>(j)), b.descriptor(i), 128)) < 1e-3;
      same += close;
    }
    MESSAGE(same << " of " << b.keypoints.size() << " entries unchanged; " << a.keypoints.size()
                 << " before");
    CHECK(same >= 0.98 * b.keypoints.size());
    config.contrast_threshold *= 2;
    const Features doubled_threshold = sift::detect_and_compute(even, config);
    CHECK(std::abs(static_cast<double>(doubled_threshold.keypoints.size()) - b.keypoints.size()) <=
          0.02 * b.keypoints.size());
  }

  TEST_CASE("sift: descriptors have unit length; RootSIFT is the square root of the L1-normalised one") {
    SiftConfig config;
    const GrayImage image = graf_piece(129);
    const Features plain = sift::detect_and_compute(image, config);
    config.root_sift = true;
    const Features root = sift::detect_and_compute(image, config);
    REQUIRE(plain.keypoints.size() == root.keypoints.size());
    REQUIRE(!plain.keypoints.empty());
    for (size_t i = 0; i < plain.keypoints.size(); ++i) {
      const float* v = plain.descriptor(i);
      const float* r = root.descriptor(i);
      double l2 = 0, l1 = 0, root_l2 = 0;
      for (int j = 0; j < 128; ++j) {
        CHECK(v[j] >= 0);
        l2 += static_cast<double>(v[j]) * v[j];
        l1 += v[j];
        root_l2 += static_cast<double>(r[j]) * r[j];
      }
      CHECK(l2 == doctest::Approx(1).epsilon(1e-5));
      CHECK(root_l2 == doctest::Approx(1).epsilon(1e-5));
      for (int j = 0; j < 128; ++j) CHECK(r[j] == doctest::Approx(std::sqrt(v[j] / l1)).epsilon(1e-5));
    }
  }

  TEST_CASE("sift: normalisation by hand: unit length, clamp at 0.2, unit length again") {
    std::vector<float> v(128, 0.0f);
    v[3] = 3;
    v[77] = 4;  // (0.6, 0.8) -> (0.2, 0.2) -> (1, 1) / sqrt(2)
    sift::normalise_descriptor(v.data(), false);
    CHECK(v[3] == doctest::Approx(std::sqrt(0.5)));
    CHECK(v[77] == doctest::Approx(std::sqrt(0.5)));
    CHECK(std::count(v.begin(), v.end(), 0.0f) == 126);

    // 128 equal values: 1 / sqrt(128) < 0.2, no clamping.
    std::vector<float> flat(128, 5.0f);
    sift::normalise_descriptor(flat.data(), false);
    for (float x : flat) CHECK(x == doctest::Approx(1 / std::sqrt(128.0)));

    // One value of 10 among 127 of 1: first 10 / sqrt(227), 1 / sqrt(227);
    // the 10 clamps at 0.2; then divided by sqrt(0.04 + 127 / 227).
    std::vector<float> peak(128, 1.0f);
    peak[0] = 10;
    sift::normalise_descriptor(peak.data(), false);
    const double n2 = std::sqrt(0.04 + 127.0 / 227);
    CHECK(peak[0] == doctest::Approx(0.2 / n2));
    CHECK(peak[1] == doctest::Approx(1 / std::sqrt(227.0) / n2));
    CHECK(peak[0] > 0.2f);  // the second normalisation takes values above 0.2 again

    std::vector<float> zero(128, 0.0f);
    sift::normalise_descriptor(zero.data(), true);
    CHECK(std::count(zero.begin(), zero.end(), 0.0f) == 128);

    // RootSIFT of (0.6, 0.8)'s clamped form: (1, 1) / 2 in L1, sqrt: 1 / sqrt(2).
    std::vector<float> two(128, 0.0f);
    two[0] = 3;
    two[1] = 4;
    sift::normalise_descriptor(two.data(), true);
    CHECK(two[0] == doctest::Approx(std::sqrt(0.5)));
    CHECK(two[1] == doctest::Approx(std::sqrt(0.5)));
  }

  TEST_CASE("sift: to_uint8 rounds 512 v and saturates at 255") {
    const float v[] = {0.0f, 0.1f, 0.3f, 0.498f, 0.4985f, 0.6f, 1.0f};
    unsigned char out[7];
    sift::to_uint8(v, 7, out);
    const unsigned char expected[] = {0, 51, 154, 255, 255, 255, 255};  // 51.2, 153.6, 254.98, 255.2
    for (int i = 0; i < 7; ++i) CHECK(static_cast<int>(out[i]) == static_cast<int>(expected[i]));
    const float below[] = {0.4970f};  // 254.46
    sift::to_uint8(below, 1, out);
    CHECK(static_cast<int>(out[0]) == 254);
  }

  TEST_CASE("sift: an image too small for any octave has no keypoints; a broken image is an error") {
    SiftConfig config;
    CHECK(sift::detect(GrayImage(3, 3, 100), config).empty());
    CHECK(sift::detect_and_compute(GrayImage(12, 12, 100), config).keypoints.empty());
    GrayImage broken(10, 10);
    broken.pixels.resize(20);
    CHECK_THROWS_AS(sift::detect(broken, config), Error);
  }
}
