#include "io/draw.hpp"

#include <stb_image_write.h>  // the implementation: stb_image_write.cpp

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>

#include "gl/error.hpp"
#include "io/output.hpp"

namespace glsurf {

namespace {

struct Canvas {
  int width, height;
  std::vector<std::uint8_t> rgb;
  void put(int x, int y, const std::uint8_t c[3]) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    std::copy(c, c + 3, &rgb[(static_cast<size_t>(y) * width + x) * 3]);
  }
  // Bresenham, clipped per pixel.
  void line(double x0, double y0, double x1, double y1, const std::uint8_t c[3]) {
    const double length = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
    if (!std::isfinite(length) || length > 1e5) return;
    const int steps = std::max(1, static_cast<int>(std::ceil(length)));
    for (int i = 0; i <= steps; ++i) {
      const double t = static_cast<double>(i) / steps;
      put(static_cast<int>(std::lround(x0 + t * (x1 - x0))),
          static_cast<int>(std::lround(y0 + t * (y1 - y0))), c);
    }
  }
};

}  // namespace

void write_match_png(std::ostream& out, const std::string& path, const MatchDrawing& d) {
  Canvas canvas{d.a->width + d.b->width, std::max(d.a->height, d.b->height), {}};
  canvas.rgb.assign(static_cast<size_t>(canvas.width) * canvas.height * 3, 0);
  for (int y = 0; y < d.a->height; ++y)
    for (int x = 0; x < d.a->width; ++x) {
      const std::uint8_t v = d.a->at(x, y), c[3] = {v, v, v};
      canvas.put(x, y, c);
    }
  for (int y = 0; y < d.b->height; ++y)
    for (int x = 0; x < d.b->width; ++x) {
      const std::uint8_t v = d.b->at(x, y), c[3] = {v, v, v};
      canvas.put(d.a->width + x, y, c);
    }
  const std::uint8_t inlier[3] = {40, 220, 60}, outlier[3] = {230, 50, 40}, outline[3] = {60, 140, 255};
  const double ox = d.a->width;
  for (size_t i = 0; i < d.matches->size(); ++i) {
    const Match& m = (*d.matches)[i];
    const KeyPoint& ka = d.fa->keypoints[static_cast<size_t>(m.query)];
    const KeyPoint& kb = d.fb->keypoints[static_cast<size_t>(m.train)];
    const bool in = !d.inliers->empty() && (*d.inliers)[i];
    canvas.line(ka.x, ka.y, ox + kb.x, kb.y, in ? inlier : outlier);
  }
  if (d.h) {
    const double corners[4][2] = {
        {0, 0}, {d.a->width - 1.0, 0}, {d.a->width - 1.0, d.a->height - 1.0}, {0, d.a->height - 1.0}};
    for (int c = 0; c < 4; ++c) {
      double x0, y0, x1, y1;
      apply(*d.h, corners[c][0], corners[c][1], x0, y0);
      apply(*d.h, corners[(c + 1) % 4][0], corners[(c + 1) % 4][1], x1, y1);
      for (int w = -1; w <= 1; ++w) canvas.line(ox + x0 + w, y0, ox + x1 + w, y1, outline);
    }
  }
  write_png(out, path, canvas.width, canvas.height, 3, canvas.rgb.data());
}

void write_match_png(const std::string& path, const MatchDrawing& d) {
  write_file_atomically(path, true, [&](std::ostream& out) { write_match_png(out, path, d); });
}

void write_png(std::ostream& out, const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels) {
  auto sink = [](void* context, void* data, int size) {
    static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(sink, &out, width, height, channels, pixels, width * channels)) {
    throw Error(path + ": PNG encoding failed");
  }
}

void write_png(const std::string& path, int width, int height, int channels, const std::uint8_t* pixels) {
  write_file_atomically(path, true,
                        [&](std::ostream& out) { write_png(out, path, width, height, channels, pixels); });
}

}  // namespace glsurf
