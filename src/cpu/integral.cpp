#include "cpu/integral.hpp"

#include "gl/error.hpp"

namespace glsurf::cpu {

IntegralImage integral_image(const GrayImage& image) {
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  IntegralImage s;
  s.width = image.width;
  s.height = image.height;
  const size_t stride = static_cast<size_t>(image.width) + 1;
  s.sums.assign(stride * (static_cast<size_t>(image.height) + 1), 0u);
  // Row by row: running sum along the row plus the finished row above.
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* row = &image.pixels[static_cast<size_t>(y) * image.width];
    const std::uint32_t* above = &s.sums[static_cast<size_t>(y) * stride];
    std::uint32_t* out = &s.sums[static_cast<size_t>(y + 1) * stride];
    std::uint32_t running = 0;
    for (int x = 0; x < image.width; ++x) {
      running += row[x];
      out[x + 1] = above[x + 1] + running;
    }
  }
  return s;
}

}  // namespace glsurf::cpu
