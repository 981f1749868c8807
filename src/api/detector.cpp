// The public Detector: the GPU pipeline (surf/detector.hpp) or the CPU
// reference (cpu/). Both check their input (image layout and size, keypoints)
// and throw glsurf::Error.
#include "glsurf/detector.hpp"

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "gl/context.hpp"
#include "glsurf/context.hpp"
#include "surf/detector.hpp"
#include "surf/keypoint.hpp"

namespace glsurf {

struct Detector::Impl {
  DetectorConfig config;
  std::unique_ptr<GpuDetector> gpu;  // null: the CPU reference
};

namespace {
void check_config(const DetectorConfig& config) {
  if (!valid_config(config)) {
    throw Error(
        "detector configuration out of range (n_octaves 1..16, n_octave_layers 1..64, first_step 1..64, "
        "no negative value, second_orientation in [0, 1] and 0 when upright)");
  }
}
}  // namespace

Detector::Detector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Detector::Detector(Detector&&) noexcept = default;
Detector& Detector::operator=(Detector&&) noexcept = default;
Detector::~Detector() = default;

Detector Detector::gpu(const Context& context, const DetectorConfig& config) {
  check_config(config);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->gpu = std::make_unique<GpuDetector>(context.native(), config);
  return Detector(std::move(impl));
}

Detector Detector::cpu(const DetectorConfig& config) {
  check_config(config);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  return Detector(std::move(impl));
}

std::vector<KeyPoint> Detector::detect(const GrayImage& image) {
  return impl().gpu ? impl().gpu->detect(image) : cpu::detect(image, impl().config);
}

Features Detector::detect_and_compute(const GrayImage& image) {
  return impl().gpu ? impl().gpu->detect_and_compute(image) : cpu::detect_and_compute(image, impl().config);
}

Features Detector::compute(const GrayImage& image, std::vector<KeyPoint> keypoints) {
  return impl().gpu ? impl().gpu->compute(image, std::move(keypoints))
                    : cpu::compute(image, std::move(keypoints), impl().config);
}

const DetectorConfig& Detector::config() const { return impl().config; }
bool Detector::on_gpu() const { return impl().gpu != nullptr; }

Detector::Impl& Detector::impl() const {
  if (!impl_) throw Error("use of a moved-from glsurf::Detector");
  return *impl_;
}

}  // namespace glsurf
