// The sizes SIFT takes and the memory its CPU reference needs.
#include "cpu/sift.hpp"

namespace glsurf::cpu::sift {

std::string image_size_problem(int width, int height, const SiftConfig&) {
  if (width >= kMinImageSide && height >= kMinImageSide) return "";
  return "image of " + std::to_string(width) + "x" + std::to_string(height) +
         " is smaller than SIFT takes (" + std::to_string(kMinImageSide) + "x" +
         std::to_string(kMinImageSide) + ")";
}

double bytes_per_pixel(const SiftConfig& config) {
  // Octave 0 has 4 pixels per image pixel when doubled; all octaves 4/3 of
  // it; s + 3 Gaussian and s + 2 DoG images and two temporaries, 4 bytes each.
  const double first = config.first_octave < 0 ? 4.0 : 1.0;
  const int images = 2 * config.n_octave_layers + 5 + 2;
  return 1.0 + first * (4.0 / 3.0) * images * 4.0;
}

}  // namespace glsurf::cpu::sift
