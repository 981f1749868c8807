#include "surf/tiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/error.hpp"
#include "surf/detector.hpp"
#include "surf/memory.hpp"

namespace glsurf {

namespace {

std::string side_text(int side) { return std::to_string(side) + "x" + std::to_string(side); }

// Along one axis of `length` pixels: the core bounds of n equal cores,
// each a multiple of `align` (the last one ends at the border); one core
// where a tile of `side` spans the axis.
std::vector<int> core_bounds(int length, int core_side, int align, int side) {
  if (length <= side) return {0, length};  // one tile spans the axis
  const int n = (length + core_side - 1) / core_side;
  const int core = ((length + n - 1) / n + align - 1) / align * align;
  std::vector<int> bounds;
  for (int b = 0; b < length; b += core) bounds.push_back(b);
  bounds.push_back(length);
  return bounds;
}

// Along one axis of `length` pixels with cores between `bounds`: where each
// tile starts, and the extent all share (the widest core with its margins,
// stretched by less than `align` so that a tile ending at the border starts
// on a multiple of it). A tile starts at its core less the margin, or
// earlier where it would otherwise run past the border: its extra context
// changes nothing, and equal tiles let the detector keep its textures from
// one tile to the next.
struct Spans {
  std::vector<int> starts;
  int extent = 0;
};
Spans spans(const std::vector<int>& bounds, int length, int margin, int align) {
  Spans s;
  int widest = 0;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) widest = std::max(widest, bounds[i + 1] - bounds[i]);
  s.extent = std::min(length, widest + 2 * margin);
  if (s.extent < length) s.extent = length - (length - s.extent) / align * align;
  for (size_t i = 0; i + 1 < bounds.size(); ++i)
    s.starts.push_back(std::clamp(bounds[i] - margin, 0, length - s.extent));
  return s;
}

}  // namespace

int tile_alignment(const DetectorConfig& config) {
  // Twice the coarsest step: the extrema pass's cells are 2 x 2 samples.
  return 2 * sample_step(config.n_octaves - 1, config.first_step);
}

int tile_margin(const DetectorConfig& config) {
  // The largest filters are those of the coarsest octave's last middle layer
  // and the layer above it.
  const int o = config.n_octaves - 1, l = config.n_octave_layers;
  const int step = sample_step(o, config.first_step);
  const int below = filter_size(o, l - 1), mid = filter_size(o, l), above = filter_size(o, l + 1);
  // Detection: the keypoint lies up to one sample from the sample found,
  // whose 3x3 neighbours' filters (side `above`) reach half a side further.
  const double detection = 2.0 * step + above / 2 + 1;
  // Description: the size interpolates at most one layer up, s = 1.2 size / 9.
  // The descriptor's sample centres lie 9.5 s along each axis at most,
  // turned: 9.5 sqrt(2) s away; each Haar box reaches half its side
  // further (even_side(4 s) / 2 <= 2 s + 1), and its sub-pixel mean one
  // pixel more; 2 pixels spare for float positions. The orientation samples
  // reach less (kOrientationReach plus half the cross's long side, 6.9 s).
  const double s = 1.2 * (2.0 * mid - below) / 9.0;
  const double description = (9.5 * std::sqrt(2.0) + cpu::kDescriptorHaar / 2) * s + 1 + 1 + 2;
  const int align = tile_alignment(config);
  const int margin = static_cast<int>(std::ceil(std::max(detection, description)));
  return (margin + align - 1) / align * align;
}

int choose_tile_side(int width, int height, const DetectorConfig& config, const TileLimits& limits) {
  const auto refused = [&](int w, int h) {
    return limits.size_problem ? limits.size_problem(w, h) : std::string();
  };
  const auto memory = [&](double w, double h) { return limits.bytes_per_pixel * w * h + limits.fixed_bytes; };
  const auto fits = [&](int w, int h) {
    return refused(w, h).empty() && (limits.budget < 0 || memory(w, h) <= limits.budget);
  };
  const int largest = std::max(width, height), smallest = min_tile_side(config);
  const int forced = limits.side;
  if (forced > 0 && forced < largest) {
    if (forced < smallest) {
      throw Error("tiles of " + side_text(forced) + " are too small: tiles need at least " +
                  side_text(smallest) + " with these octaves (a core and its margin on each side)");
    }
    if (const std::string why = refused(forced, forced); !why.empty())
      throw Error("tiles of " + side_text(forced) + ": " + why);
  }
  // A forced side smaller than the image tiles it, and the budget and the
  // driver may ask for smaller tiles still.
  if (fits(width, height)) return forced > 0 && forced < largest ? forced : 0;
  if (!fits(smallest, smallest)) {
    std::string why = refused(smallest, smallest);
    if (why.empty()) {
      char figures[160];
      std::snprintf(figures, sizeof figures, "needs about %.2f GB; %s %.2f GB",
                    memory(smallest, smallest) / 1e9,
                    limits.budget_given ? "the memory budget leaves" : "available is", limits.budget / 1e9);
      why = figures;
    }
    throw Error("image of " + std::to_string(width) + "x" + std::to_string(height) +
                " does not fit in one piece, and its smallest tile (" + side_text(smallest) + ") " + why);
  }
  // The largest aligned side that fits, by bisection (fits is monotone).
  const int align = tile_alignment(config);
  int lo = smallest, hi = (largest + align - 1) / align * align;
  while (hi - lo > align) {
    const int side = (lo + hi) / 2 / align * align;
    (fits(side, side) ? lo : hi) = side;
  }
  return forced > 0 && forced < largest ? std::min(lo, forced) : lo;
}

std::vector<Tile> plan_tiles(int width, int height, int side, const DetectorConfig& config) {
  const int margin = tile_margin(config), align = tile_alignment(config);
  GLSURF_EXPECTS(side >= min_tile_side(config), "a tile side of at least min_tile_side()");
  // The extent may grow by less than `align` past a core and its margins.
  const int core_side = (side - 2 * margin - align + 1) / align * align;
  const std::vector<int> xs = core_bounds(width, core_side, align, side),
                         ys = core_bounds(height, core_side, align, side);
  const Spans columns = spans(xs, width, margin, align), rows = spans(ys, height, margin, align);
  std::vector<Tile> tiles;
  for (size_t r = 0; r + 1 < ys.size(); ++r) {
    for (size_t c = 0; c + 1 < xs.size(); ++c) {
      Tile t;
      t.x = columns.starts[c];
      t.y = rows.starts[r];
      t.width = columns.extent;
      t.height = rows.extent;
      // Cores on the image's border reach past it: nothing is cut there.
      t.core.x0 = c == 0 ? -TileCore::kUnbounded : xs[c] - t.x;
      t.core.y0 = r == 0 ? -TileCore::kUnbounded : ys[r] - t.y;
      t.core.x1 = c + 2 == xs.size() ? TileCore::kUnbounded : xs[c + 1] - t.x;
      t.core.y1 = r + 2 == ys.size() ? TileCore::kUnbounded : ys[r + 1] - t.y;
      tiles.push_back(t);
    }
  }
  return tiles;
}

GrayImage crop(const GrayImage& image, const Tile& tile) {
  GrayImage out;
  out.width = tile.width;
  out.height = tile.height;
  out.pixels.resize(static_cast<size_t>(tile.width) * static_cast<size_t>(tile.height));
  for (int y = 0; y < tile.height; ++y) {
    std::memcpy(&out.pixels[static_cast<size_t>(y) * tile.width],
                &image.pixels[static_cast<size_t>(tile.y + y) * image.width + tile.x],
                static_cast<size_t>(tile.width));
  }
  return out;
}

Features describe_tiled(const GrayImage& image, const std::vector<Tile>& tiles, const DetectorConfig& config,
                        const DescribeTile& describe) {
  Features all;
  all.descriptor_size = descriptor_size(config);
  const size_t most = config.max_features > 0 ? static_cast<size_t>(config.max_features) : 0;
  // Sorted strongest first and held to max_features; as the tiles come
  // too, so that at most twice max_features are held, whatever the tiles.
  const auto strongest = [&] {
    sort_by_strength(all);
    if (most > 0 && all.keypoints.size() > most) {
      all.keypoints.resize(most);
      all.descriptors.resize(most * static_cast<size_t>(all.descriptor_size));
    }
  };
  for (const Tile& tile : tiles) {
    Features f = describe(crop(image, tile), tile.core);
    for (KeyPoint& k : f.keypoints) {
      k.x += static_cast<float>(tile.x);
      k.y += static_cast<float>(tile.y);
    }
    all.descriptor_size = f.descriptor_size;
    all.keypoints.insert(all.keypoints.end(), f.keypoints.begin(), f.keypoints.end());
    all.descriptors.insert(all.descriptors.end(), f.descriptors.begin(), f.descriptors.end());
    if (most > 0 && all.keypoints.size() > 2 * most) strongest();
  }
  strongest();
  return all;
}

int tile_side(const GpuDetector* detector, const DetectorConfig& config, const Tiling& tiling, int width,
              int height) {
  TileLimits limits;
  limits.side = tiling.tile_size;
  // Host memory for the CPU reference and a software renderer; a GPU's
  // free video memory where its driver says.
  double available =
      !detector || detector->host_textures() ? available_host_memory() : gl::available_video_memory();
  if (available >= 0 && detector) available += detector->held_bytes();
  const double image_bytes = static_cast<double>(width) * height;
  const double budget = tiling.memory_budget < 0 ? -1 : std::max(0.0, tiling.memory_budget - image_bytes);
  limits.budget = budget < 0 ? available : available < 0 ? budget : std::min(budget, available);
  limits.budget_given = budget >= 0 && limits.budget == budget;
  // A tile's own pixels, cropped, come on top of the detector's rate.
  if (detector) {
    limits.bytes_per_pixel = detector->bytes_per_pixel() + 1;
    limits.fixed_bytes = detector->fixed_bytes();
    limits.size_problem = [detector](int w, int h) { return detector->size_problem(w, h); };
  } else {
    limits.bytes_per_pixel = cpu::bytes_per_pixel(config) + 1;
  }
  return choose_tile_side(width, height, config, limits);
}

TiledDetection detect_and_compute_tiled(GpuDetector* detector, const DetectorConfig& config,
                                        const Tiling& tiling, const GrayImage& image,
                                        DescriptorTextures* resident, int side) {
  TiledDetection out;
  if (side < 0) side = tile_side(detector, config, tiling, image.width, image.height);
  if (side == 0) {
    out.features =
        detector ? detector->detect_and_compute(image, resident) : cpu::detect_and_compute(image, config);
    out.truncated = detector && detector->truncated_last_frame();
    return out;
  }
  const std::vector<Tile> tiles = plan_tiles(image.width, image.height, side, config);
  out.tiles = static_cast<int>(tiles.size());
  const auto describe = [&](const GrayImage& pixels, const TileCore& core) {
    if (!detector) return cpu::detect_and_compute(pixels, config, core);
    detector->set_core(core);
    Features f = detector->detect_and_compute(pixels);
    out.truncated = out.truncated || detector->truncated_last_frame();
    return f;
  };
  try {
    out.features = describe_tiled(image, tiles, config, describe);
  } catch (...) {
    if (detector) detector->set_core(TileCore{});
    throw;
  }
  if (detector) detector->set_core(TileCore{});
  return out;
}

}  // namespace glsurf
