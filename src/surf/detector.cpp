#include "surf/detector.hpp"

#include "gl/error.hpp"

#include <algorithm>
#include <cmath>

namespace glsurf {

namespace {
constexpr int kMinCapacity = 65536;
}

Detector::Detector(const gl::Context& context, const DetectorConfig& config, const gl::ShaderSource& shaders)
    : config_(config),
      integral_(shaders),
      hessian_(shaders, config),
      extrema_(shaders, config),
      compact_(shaders, std::max(kMinCapacity, config.max_features)),
      select_(shaders),
      max_texture_size_(context.info().max_texture_size) {
  GLSURF_EXPECTS(config.max_features >= 0, "max_features must be >= 0");
}

void Detector::configure(int width, int height) {
  integral_.configure(width, height);
  hessian_.configure(width, height);
  extrema_.configure(hessian_, width, height);
  compact_.configure(extrema_);
  image_ = gl::Texture(width, height, gl::Format::R8, "image");
  width_ = width;
  height_ = height;
}

std::vector<KeyPoint> Detector::detect(const GrayImage& image) {
  const int min_side = min_image_side(config_);
  if (image.width < min_side || image.height < min_side) {
    throw Error("image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                " is smaller than the smallest filter allows (" + std::to_string(min_side) + "x" +
                std::to_string(min_side) + ")");
  }
  // The candidate atlas is 1.5 times as wide as the image.
  if (image.width + 1 > max_texture_size_ || image.height + 1 > max_texture_size_ ||
      image.width + (image.width + 1) / 2 > max_texture_size_) {
    throw Error("image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                " is too large for this driver's textures (" + std::to_string(max_texture_size_) +
                " per side; the detector needs 1.5 x width)");
  }
  if (image.width != width_ || image.height != height_) configure(image.width, image.height);

  image_.upload(image.pixels.data());
  hessian_.run(runner_, integral_.run(runner_, image_));
  extrema_.run(runner_, hessian_);
  const gl::Texture* selection = nullptr;
  if (config_.max_features > 0) selection = &select_.run(runner_, extrema_.atlas(), config_.max_features);
  candidates_ = compact_.count(runner_, extrema_, selection);
  truncated_ = false;
  if (candidates_ > compact_.capacity() && !selection) {
    // More than the list holds: keep the strongest that fit (a second count).
    selection = &select_.run(runner_, extrema_.atlas(), compact_.capacity());
    candidates_ = compact_.count(runner_, extrema_, selection);
    truncated_ = true;
  }
  if (candidates_ > compact_.capacity()) {
    throw Error(std::to_string(candidates_ - compact_.capacity()) +
                " keypoints tie exactly with the weakest one kept and do not fit the point list");
  }
  compact_.write_list(runner_, extrema_, selection);
  std::vector<float> list, where;
  compact_.read_list(candidates_, list, where);

  std::vector<KeyPoint> keypoints(static_cast<size_t>(candidates_));
  for (size_t i = 0; i < keypoints.size(); ++i) {
    KeyPoint& k = keypoints[i];
    k.x = list[4 * i];
    k.y = list[4 * i + 1];
    k.size = std::abs(list[4 * i + 2]);
    k.laplacian = list[4 * i + 2] > 0 ? 1 : -1;
    k.response = list[4 * i + 3];
    k.octave = static_cast<int>(where[4 * i]);
  }
  sort_by_strength(keypoints);
  if (config_.max_features > 0 && static_cast<int>(keypoints.size()) > config_.max_features) {
    keypoints.resize(static_cast<size_t>(config_.max_features));
  }
  return keypoints;
}

}  // namespace glsurf
