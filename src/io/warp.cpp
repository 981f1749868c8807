#include "io/warp.hpp"

#include <algorithm>
#include <cmath>

#include "gl/error.hpp"

namespace glsurf {

namespace {

constexpr int kLobes = 3;
constexpr double kPi = 3.14159265358979323846;
constexpr double kInside = 1e-6;  // px a source point may lie past the border

double lanczos(double t) {
  if (std::abs(t) >= kLobes) return 0.0;
  if (std::abs(t) < 1e-9) return 1.0;
  const double a = kPi * t;
  return kLobes * std::sin(a) * std::sin(a / kLobes) / (a * a);
}

// The largest singular value of g's Jacobian at (x, y): how much g
// stretches lengths there in the direction it stretches most.
double stretch(const Homography& g, double x, double y) {
  const auto [a, b, c, d] = jacobian(g, x, y);
  const double sum = a * a + b * b + c * c + d * d, det = a * d - b * c;
  return std::sqrt(0.5 * (sum + std::sqrt(std::max(0.0, sum * sum - 4 * det * det))));
}

}  // namespace

std::vector<double> warp_image(const GrayImage& image, const Homography& to_output, int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0 && image.width > 0 && image.height > 0,
                 "warp_image needs non-empty sizes");
  GLSURF_EXPECTS(!is_singular(to_output), "warp_image needs an invertible homography");
  const Homography g = inverse(to_output);
  // The kernel is never wider than the image: past that, every tap reads the
  // image's edge.
  const double widest = std::max(image.width, image.height);
  std::vector<double> out(static_cast<size_t>(width) * height, 0.0);
  std::vector<double> wx, wy;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double u = g[0] * x + g[1] * y + g[2], v = g[3] * x + g[4] * y + g[5],
                   w = g[6] * x + g[7] * y + g[8];
      const double sx = u / w, sy = v / w;
      // Compared as doubles: on the line H sends to infinity sx is not finite.
      if (!(sx >= -kInside && sy >= -kInside && sx <= image.width - 1 + kInside &&
            sy <= image.height - 1 + kInside))
        continue;
      const double f = std::clamp(stretch(g, x, y), 1.0, widest);
      const int reach = static_cast<int>(std::ceil(kLobes * f));
      // Taps x0 .. x0 + 2 reach - 1; those past the border read the edge, so
      // their weights are added to the edge pixel's, and the sum runs over
      // the taps inside the image only.
      const int x0 = static_cast<int>(std::floor(sx)) - reach + 1,
                y0 = static_cast<int>(std::floor(sy)) - reach + 1;
      const int x_first = std::max(x0, 0), x_last = std::min(x0 + 2 * reach - 1, image.width - 1);
      const int y_first = std::max(y0, 0), y_last = std::min(y0 + 2 * reach - 1, image.height - 1);
      wx.assign(static_cast<size_t>(x_last - x_first + 1), 0.0);
      wy.assign(static_cast<size_t>(y_last - y_first + 1), 0.0);
      double sum_x = 0, sum_y = 0;
      for (int k = 0; k < 2 * reach; ++k) {
        const double a = lanczos((sx - (x0 + k)) / f), b = lanczos((sy - (y0 + k)) / f);
        wx[static_cast<size_t>(std::clamp(x0 + k, 0, image.width - 1) - x_first)] += a;
        wy[static_cast<size_t>(std::clamp(y0 + k, 0, image.height - 1) - y_first)] += b;
        sum_x += a;
        sum_y += b;
      }
      double value = 0;
      for (int row = y_first; row <= y_last; ++row) {
        double line = 0;
        for (int column = x_first; column <= x_last; ++column)
          line += wx[static_cast<size_t>(column - x_first)] * image.at(column, row);
        value += wy[static_cast<size_t>(row - y_first)] * line;
      }
      out[static_cast<size_t>(y) * width + x] = value / (sum_x * sum_y);
    }
  }
  return out;
}

}  // namespace glsurf
