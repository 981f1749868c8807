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
#include "surf/tiles.hpp"

namespace glsurf {

struct Detector::Impl {
  DetectorConfig config;
  Tiling tiling;
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
  Impl& i = impl();
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  if (const std::string why = image_size_problem(image.width, image.height, i.config); !why.empty())
    throw Error(why);
  const int side = tile_side(i.gpu.get(), i.config, i.tiling, image.width, image.height);
  if (side == 0) return i.gpu ? i.gpu->detect(image) : cpu::detect(image, i.config);
  const auto keypoints = [&](const GrayImage& pixels, const TileCore& core) {
    Features f;
    if (!i.gpu) {
      f.keypoints = cpu::detect(pixels, i.config, core);
      return f;
    }
    i.gpu->set_core(core);
    try {
      f.keypoints = i.gpu->detect(pixels);
    } catch (...) {
      i.gpu->set_core(TileCore{});
      throw;
    }
    i.gpu->set_core(TileCore{});
    return f;
  };
  return describe_tiled(image, plan_tiles(image.width, image.height, side, i.config), i.config, keypoints)
      .keypoints;
}

Features Detector::detect_and_compute(const GrayImage& image) {
  Impl& i = impl();
  if (const std::string why = image_layout_problem(image); !why.empty()) throw Error(why);
  if (const std::string why = image_size_problem(image.width, image.height, i.config); !why.empty())
    throw Error(why);
  return detect_and_compute_tiled(i.gpu.get(), i.config, i.tiling, image).features;
}

void Detector::set_tiling(const Tiling& tiling) {
  if (tiling.tile_size < 0) throw Error("tile_size must be 0 (no forced tiles) or a side in pixels");
  impl().tiling = tiling;
}
const Tiling& Detector::tiling() const { return impl().tiling; }

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
