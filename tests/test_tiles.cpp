// Tiled detection (surf/tiles.hpp): the plan (cores partition the image,
// tiles aligned and within the side asked for), the choice of the tile side
// under a memory budget and the driver's limits, and the result: an image
// detected in small tiles gives the keypoints and descriptors it gives in
// one piece, on both backends, with blobs planted on the tiles' bounds and
// corners so that keypoints whose windows cross them are many.
//
// Criterion (issue 55): at least 99.5 % of the keypoints of either result
// have one in the other within 0.1 px, with the same Laplacian sign and a
// size within 0.1 %, and its descriptor at cosine >= 0.999. A tile's box sums
// are the whole image's (its own exact integral image) and its margin holds
// every look-up of a core keypoint, so the results are the same but for the
// float rounding of positions relative to a tile's origin; the 0.5 % left is
// for that rounding tipping a near-tie.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "io/image.hpp"
#include "io/warp.hpp"
#include "support.hpp"
#include "surf/detector.hpp"
#include "surf/tiles.hpp"

using namespace glsurf;

namespace {

// `photo` resampled to width x height (Lanczos, io/warp.hpp).
GrayImage resized(const GrayImage& photo, int width, int height) {
  const Homography scale = {static_cast<double>(width) / photo.width,
                            0,
                            0,
                            0,
                            static_cast<double>(height) / photo.height,
                            0,
                            0,
                            0,
                            1};
  const std::vector<double> values = warp_image(photo, scale, width, height);
  GrayImage out;
  out.width = width;
  out.height = height;
  out.pixels.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out.pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(values[i]), 0L, 255L));
  return out;
}

// Gaussian blobs, dark and light by turns, of sigma 2 to 24 pixels centred
// on the tiles' core bounds (along them and where four cores meet).
void plant_blobs(GrayImage& image, const std::vector<Tile>& tiles) {
  std::vector<std::pair<int, int>> centres;
  for (const Tile& t : tiles) {
    const int x0 = t.x + t.core.x0, y0 = t.y + t.core.y0;
    if (t.core.x0 == -TileCore::kUnbounded || t.core.y0 == -TileCore::kUnbounded) continue;
    centres.push_back({x0, y0});  // a corner of four cores
    for (int k = 1; k < 6; ++k) {
      centres.push_back({x0 + k * 61, y0});
      centres.push_back({x0, y0 + k * 61});
    }
  }
  const double sigmas[] = {2, 4, 8, 16, 24};
  for (size_t c = 0; c < centres.size(); ++c) {
    const double sigma = sigmas[c % 5], amplitude = c % 2 ? 90 : -90;
    const auto [cx, cy] = centres[c];
    const int r = static_cast<int>(3 * sigma);
    for (int y = std::max(0, cy - r); y <= std::min(image.height - 1, cy + r); ++y) {
      for (int x = std::max(0, cx - r); x <= std::min(image.width - 1, cx + r); ++x) {
        const double g =
            amplitude * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * sigma * sigma));
        std::uint8_t& p = image.pixels[static_cast<size_t>(y) * image.width + x];
        p = static_cast<std::uint8_t>(std::clamp(std::lround(p + g), 0L, 255L));
      }
    }
  }
}

// The fraction of a's keypoints with one in b (0.1 px, size within 0.1 %,
// same sign) whose descriptor is at cosine >= 0.999 to a's.
double same_fraction(const Features& a, const Features& b) {
  const size_t n = static_cast<size_t>(a.descriptor_size);
  // b by row for the look-up.
  std::vector<size_t> order(b.keypoints.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t i, size_t j) { return b.keypoints[i].y < b.keypoints[j].y; });
  size_t same = 0;
  for (size_t i = 0; i < a.keypoints.size(); ++i) {
    const KeyPoint& k = a.keypoints[i];
    auto it = std::lower_bound(order.begin(), order.end(), k.y - 0.1f,
                               [&](size_t j, float y) { return b.keypoints[j].y < y; });
    for (; it != order.end() && b.keypoints[*it].y <= k.y + 0.1f; ++it) {
      const KeyPoint& m = b.keypoints[*it];
      if (std::abs(m.x - k.x) > 0.1f || std::abs(m.size - k.size) > 1e-3f * k.size ||
          m.laplacian != k.laplacian)
        continue;
      if (std::abs(m.angle - k.angle) > 1e-2f && std::abs(std::abs(m.angle - k.angle) - 360) > 1e-2f)
        continue;
      double dot = 0, na = 0, nb = 0;
      for (size_t d = 0; d < n; ++d) {
        const double u = a.descriptors[i * n + d], v = b.descriptors[*it * n + d];
        dot += u * v, na += u * u, nb += v * v;
      }
      if (n == 0 || dot >= 0.999 * std::sqrt(na * nb)) {
        ++same;
        break;
      }
    }
  }
  return a.keypoints.empty() ? 1.0 : static_cast<double>(same) / static_cast<double>(a.keypoints.size());
}

// How many of `f`'s keypoints lie within `reach` pixels of some core bound
// inside the image (not the image's own border).
int near_bounds(const Features& f, const std::vector<Tile>& tiles, float reach) {
  int n = 0;
  for (const KeyPoint& k : f.keypoints) {
    for (const Tile& t : tiles) {
      const bool x = t.core.x0 != -TileCore::kUnbounded && std::abs(k.x - (t.x + t.core.x0)) < reach;
      const bool y = t.core.y0 != -TileCore::kUnbounded && std::abs(k.y - (t.y + t.core.y0)) < reach;
      if (x || y) {
        ++n;
        break;
      }
    }
  }
  return n;
}

// `image` in one piece and in tiles of `side`, on `describe` (a backend
// taking a tile's core); checks the criterion above and that the bounds
// were exercised.
void compare_tiled(const GrayImage& image, const DetectorConfig& config, int side,
                   const DescribeTile& describe) {
  const std::vector<Tile> tiles = plan_tiles(image.width, image.height, side, config);
  REQUIRE(tiles.size() >= 4);
  const Features whole = describe(image, TileCore{});
  const Features tiled = describe_tiled(image, tiles, config, describe);
  INFO(image.width << "x" << image.height << " in " << tiles.size() << " tiles of " << side << ": "
                   << whole.keypoints.size() << " keypoints whole, " << tiled.keypoints.size() << " tiled");
  REQUIRE(whole.keypoints.size() > 500);
  CHECK(near_bounds(whole, tiles, 8) >= 50);  // keypoints whose windows cross a bound
  CHECK(same_fraction(whole, tiled) >= 0.995);
  CHECK(same_fraction(tiled, whole) >= 0.995);
}

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE(
      "tiles: the cores partition the image; tiles are aligned, hold their core's margin, fit the side") {
    for (const DetectorConfig config :
         {DetectorConfig{}, DetectorConfig{100, 2, 3, 0, false, false, 2}, DetectorConfig{100, 1, 1}}) {
      const int margin = tile_margin(config), align = tile_alignment(config);
      CHECK(margin % align == 0);
      for (const auto [width, height, side] : {std::array<int, 3>{5000, 3000, min_tile_side(config)},
                                               {5000, 3000, 2048},
                                               {777, 1999, 1000},
                                               {168, 12027, 904},
                                               {50000, 1200, 2000},
                                               {4096, 4096, 4096 - 1}}) {
        if (side < min_tile_side(config)) continue;
        const std::vector<Tile> tiles = plan_tiles(width, height, side, config);
        std::vector<int> covered(static_cast<size_t>(width) + height, 0);  // x's then y's, by core
        long long area = 0;
        for (const Tile& t : tiles) {
          INFO("tile at " << t.x << "," << t.y << " of " << t.width << "x" << t.height);
          CHECK(t.width <= side);
          CHECK(t.height <= side);
          CHECK(t.x % align == 0);
          CHECK(t.y % align == 0);
          const int x0 = std::max(0, t.core.x0 + t.x),
                    x1 = std::min(width, t.core.x1 == TileCore::kUnbounded ? width : t.core.x1 + t.x);
          const int y0 = std::max(0, t.core.y0 + t.y),
                    y1 = std::min(height, t.core.y1 == TileCore::kUnbounded ? height : t.core.y1 + t.y);
          CHECK(x0 % align == 0);
          CHECK(y0 % align == 0);
          // The margin around the core lies in the tile, or the core meets the border.
          CHECK(t.x <= std::max(0, x0 - margin));
          CHECK(t.x + t.width >= std::min(width, x1 + margin));
          CHECK(t.y <= std::max(0, y0 - margin));
          CHECK(t.y + t.height >= std::min(height, y1 + margin));
          CHECK(t.x + t.width <= width);
          CHECK(t.y + t.height <= height);
          CHECK(t.width == tiles.front().width);  // one size: the detector configures once
          CHECK(t.height == tiles.front().height);
          area += static_cast<long long>(x1 - x0) * (y1 - y0);
          if (t.core.y0 == -TileCore::kUnbounded)
            for (int x = x0; x < x1; ++x) ++covered[static_cast<size_t>(x)];
          if (t.core.x0 == -TileCore::kUnbounded)
            for (int y = y0; y < y1; ++y) ++covered[static_cast<size_t>(width + y)];
        }
        CHECK(area == static_cast<long long>(width) * height);
        // An axis that one tile spans has one core: no tile repeats another's work.
        if (width <= side) CHECK(tiles.front().width == width);
        if (height <= side) CHECK(tiles.front().height == height);
        if (width <= side && height <= side) CHECK(tiles.size() == 1);
        CHECK(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
      }
    }
  }

  TEST_CASE("tiles: the side is the largest that fits the budget and the driver, 0 when the image fits") {
    const DetectorConfig config;
    const int align = tile_alignment(config), smallest = min_tile_side(config);
    CHECK(tile_margin(config) == 416);  // the header's figure
    TileLimits limits;
    limits.bytes_per_pixel = 100;
    limits.fixed_bytes = 1e8;
    limits.budget = 100.0 * 3000 * 2000 + 1e8;
    CHECK(choose_tile_side(3000, 2000, config, limits) == 0);  // just fits
    const int side = choose_tile_side(3001, 2000, config, limits);
    CHECK(side % align == 0);
    CHECK(100.0 * side * side + 1e8 <= limits.budget);
    CHECK(100.0 * (side + align) * (side + align) + 1e8 > limits.budget);
    // The driver's limit, as GpuDetector::size_problem says it.
    limits.budget = -1;
    limits.size_problem = [](int w, int h) { return std::max(w, h) > 2000 ? std::string("too wide") : ""; };
    CHECK(choose_tile_side(2000, 2000, config, limits) == 0);
    const int driver_side = choose_tile_side(6000, 4000, config, limits);
    CHECK(driver_side <= 2000);
    CHECK(driver_side > 2000 - align);
    // Forced, and too small for any tile.
    limits.side = 1500;
    CHECK(choose_tile_side(6000, 4000, config, limits) == 1500);
    CHECK(choose_tile_side(1500, 1400, config, limits) == 0);
    // A forced side and a budget: the smaller side holds, and a forced side
    // as large as the image does not lift the budget.
    limits.size_problem = nullptr;
    limits.budget = 100.0 * 1200 * 1200 + 1e8;
    CHECK(choose_tile_side(6000, 4000, config, limits) <= 1200);
    CHECK(choose_tile_side(6000, 4000, config, limits) > 1200 - align);
    limits.side = 8000;
    CHECK(choose_tile_side(6000, 4000, config, limits) <= 1200);
    limits.side = smallest - 1;
    CHECK_THROWS_WITH_AS(choose_tile_side(6000, 4000, config, limits), doctest::Contains("too small"), Error);
    limits.side = 0;
    limits.size_problem = nullptr;
    limits.budget = 100.0 * smallest * smallest;  // below the fixed part
    CHECK_THROWS_WITH_AS(choose_tile_side(6000, 4000, config, limits), doctest::Contains("available is"),
                         Error);
    limits.budget_given = true;
    CHECK_THROWS_WITH_AS(choose_tile_side(6000, 4000, config, limits), doctest::Contains("memory budget"),
                         Error);
  }

  TEST_CASE("tiles: the CPU reference in tiles finds and describes what it finds in one piece") {
    // Three octaves keep the margin (208 px) and the run short.
    DetectorConfig config;
    config.n_octaves = 3;
    const GrayImage photo = load_gray(std::string(GLSURF_TEST_ASSET_DIR) + "/graf1.png");
    GrayImage image = resized(photo, 1400, 1000);
    const int side = 2 * tile_margin(config) + 320;
    plant_blobs(image, plan_tiles(image.width, image.height, side, config));
    compare_tiled(image, config, side, [&](const GrayImage& pixels, const TileCore& core) {
      return cpu::detect_and_compute(pixels, config, core);
    });
  }

  TEST_CASE("tiles: max_features keeps the image's strongest, not each tile's") {
    DetectorConfig config;
    config.n_octaves = 2;
    config.max_features = 300;
    const GrayImage image = resized(load_gray(std::string(GLSURF_TEST_ASSET_DIR) + "/graf1.png"), 1000, 800);
    const auto describe = [&](const GrayImage& pixels, const TileCore& core) {
      return cpu::detect_and_compute(pixels, config, core);
    };
    const Features whole = describe(image, TileCore{});
    const Features tiled =
        describe_tiled(image, plan_tiles(1000, 800, 2 * tile_margin(config) + 200, config), config, describe);
    REQUIRE(whole.keypoints.size() == 300);
    CHECK(tiled.keypoints.size() == 300);
    CHECK(same_fraction(whole, tiled) >= 0.995);
  }
}

TEST_SUITE("gl") {
  TEST_CASE("tiles: the GPU detector in tiles finds and describes what it finds in one piece") {
    const DetectorConfig config;
    GpuDetector detector(test::headless_context(), config);
    const auto describe = [&](const GrayImage& pixels, const TileCore& core) {
      detector.set_core(core);
      Features f = detector.detect_and_compute(pixels);
      detector.set_core(TileCore{});
      return f;
    };
    SUBCASE("2048 x 2048, blobs on the bounds") {
      GrayImage image = resized(load_gray(std::string(GLSURF_TEST_ASSET_DIR) + "/graf1.png"), 2048, 2048);
      const int side = 2 * tile_margin(config) + 816;  // 3 x 3 tiles
      plant_blobs(image, plan_tiles(image.width, image.height, side, config));
      compare_tiled(image, config, side, describe);
    }
    SUBCASE("3000 x 2000") {
      const GrayImage image =
          resized(load_gray(std::string(GLSURF_TEST_ASSET_DIR) + "/box_in_scene.png"), 3000, 2000);
      compare_tiled(image, config, 1990, describe);  // 3 x 2 tiles
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }
}
