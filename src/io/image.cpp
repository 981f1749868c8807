#include "io/image.hpp"

#include "gl/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace glsurf {

GrayImage load_gray(const std::string& path, const LoadLimits& limits) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw Error(path + ": cannot open file");
  int w = 0, h = 0, n = 0;
  if (!stbi_info_from_file(file.get(), &w, &h, &n)) {
    throw Error(path + ": not a supported image (" + stbi_failure_reason() + ")");
  }
  if (w > limits.max_side || h > limits.max_side ||
      static_cast<long long>(w) * h > limits.max_pixels) {
    throw Error(path + ": image of " + std::to_string(w) + "x" + std::to_string(h) +
                " exceeds the limit of " + std::to_string(limits.max_side) + " per side / " +
                std::to_string(limits.max_pixels) + " pixels");
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> data(stbi_load_from_file(file.get(), &w, &h, &n, 0),
                                                 &stbi_image_free);
  if (!data) throw Error(path + ": cannot decode image (" + stbi_failure_reason() + ")");

  GrayImage out(w, h);
  const size_t count = static_cast<size_t>(w) * h;
  const stbi_uc* p = data.get();
  for (size_t i = 0; i < count; ++i, p += n) {
    if (n <= 2) {
      out.pixels[i] = p[0];  // grey or grey+alpha
    } else {
      out.pixels[i] = static_cast<std::uint8_t>((4899 * p[0] + 9617 * p[1] + 1868 * p[2] + 8192) >> 14);
    }
  }
  return out;
}

GrayImage resize(const GrayImage& image, int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0 && image.width > 0 && image.height > 0,
                 "resize needs non-empty sizes");
  GrayImage out(width, height);
  const double sx = static_cast<double>(image.width) / width;
  const double sy = static_cast<double>(image.height) / height;
  for (int y = 0; y < height; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, image.height - 1.0);
    const int y0 = static_cast<int>(fy);
    const int y1 = std::min(y0 + 1, image.height - 1);
    const double wy = fy - y0;
    for (int x = 0; x < width; ++x) {
      const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, image.width - 1.0);
      const int x0 = static_cast<int>(fx);
      const int x1 = std::min(x0 + 1, image.width - 1);
      const double wx = fx - x0;
      const double top = image.at(x0, y0) * (1 - wx) + image.at(x1, y0) * wx;
      const double bottom = image.at(x0, y1) * (1 - wx) + image.at(x1, y1) * wx;
      out.at(x, y) = static_cast<std::uint8_t>(std::lround(top * (1 - wy) + bottom * wy));
    }
  }
  return out;
}

}  // namespace glsurf
