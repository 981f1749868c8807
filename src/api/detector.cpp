// The public Detector: the GPU pipeline (surf/detector.hpp) or the CPU
// reference (cpu/). Both check their input (image layout and size, keypoints)
// and throw glsurf::Error.
#include "glsurf/detector.hpp"

#include <cmath>

#include "cpu/descriptor.hpp"
#include "cpu/detector.hpp"
#include "cpu/sift.hpp"
#include "gl/context.hpp"
#include "glsurf/context.hpp"
#include "sift/detector.hpp"
#include "surf/detector.hpp"
#include "surf/keypoint.hpp"
#include "surf/memory.hpp"
#include "surf/tiles.hpp"

namespace glsurf {

struct Detector::Impl {
  FeatureType type = FeatureType::Surf;
  DetectorConfig config;
  SiftConfig sift;
  Tiling tiling;
  std::unique_ptr<GpuDetector> gpu;  // SURF; both null: the CPU reference
  std::unique_ptr<sift::GpuSift> sift_gpu;
  bool sift_cpu() const { return type == FeatureType::Sift && !sift_gpu; }
};

namespace {
void check_config(const DetectorConfig& config) {
  if (!valid_config(config)) {
    throw Error(
        "detector configuration out of range (n_octaves 1..16, n_octave_layers 1..64, first_step 1..64, "
        "no negative value, second_orientation in [0, 1] and 0 when upright)");
  }
}
void check_config(const SiftConfig& c) {
  const auto positive = [](float v) { return std::isfinite(v) && v > 0; };
  if (c.n_octaves < 0 || c.n_octaves > 16 || c.n_octave_layers < 1 || c.n_octave_layers > 8 ||
      (c.first_octave != -1 && c.first_octave != 0) ||
      !(std::isfinite(c.contrast_threshold) && c.contrast_threshold >= 0) || !positive(c.edge_threshold) ||
      !positive(c.sigma) || c.max_features < 0) {
    throw Error(
        "SIFT configuration out of range (n_octaves 0..16, n_octave_layers 1..8, first_octave -1 or 0, "
        "contrast_threshold >= 0, edge_threshold and sigma positive, max_features >= 0)");
  }
}

// Why the SIFT detector refuses `image`, or "".
std::string sift_problem(const SiftConfig& sift, const sift::GpuSift* gpu, const Tiling& tiling,
                         const GrayImage& image) {
  if (std::string why = image_layout_problem(image); !why.empty()) return why;
  if (std::string why = cpu::sift::image_size_problem(image.width, image.height, sift); !why.empty())
    return why;
  if (gpu) return gpu->size_problem(image.width, image.height);
  return memory_problem(image.width, image.height, cpu::sift::bytes_per_pixel(sift),
                        tiling.memory_budget >= 0 ? tiling.memory_budget : available_host_memory(),
                        "for SIFT on the CPU");
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

Detector Detector::sift_gpu(const Context& context, const SiftConfig& config) {
  check_config(config);
  auto impl = std::make_unique<Impl>();
  impl->type = FeatureType::Sift;
  impl->sift = config;
  impl->sift_gpu = std::make_unique<sift::GpuSift>(context.native(), config);
  return Detector(std::move(impl));
}

Detector Detector::sift_cpu(const SiftConfig& config) {
  check_config(config);
  auto impl = std::make_unique<Impl>();
  impl->type = FeatureType::Sift;
  impl->sift = config;
  return Detector(std::move(impl));
}

std::vector<KeyPoint> Detector::detect(const GrayImage& image) {
  Impl& i = impl();
  if (i.type == FeatureType::Sift) {
    if (const std::string why = sift_problem(i.sift, i.sift_gpu.get(), i.tiling, image); !why.empty())
      throw Error(why);
    return i.sift_gpu ? i.sift_gpu->detect(image) : cpu::sift::detect(image, i.sift);
  }
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
  if (i.type == FeatureType::Sift) {
    if (const std::string why = sift_problem(i.sift, i.sift_gpu.get(), i.tiling, image); !why.empty())
      throw Error(why);
    return i.sift_gpu ? i.sift_gpu->detect_and_compute(image) : cpu::sift::detect_and_compute(image, i.sift);
  }
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
  if (impl().type == FeatureType::Sift) {
    if (const std::string why = sift_problem(impl().sift, impl().sift_gpu.get(), impl().tiling, image);
        !why.empty())
      throw Error(why);
    return cpu::sift::compute(image, keypoints, impl().sift);
  }
  return impl().gpu ? impl().gpu->compute(image, std::move(keypoints))
                    : cpu::compute(image, std::move(keypoints), impl().config);
}

const DetectorConfig& Detector::config() const { return impl().config; }
const SiftConfig& Detector::sift_config() const { return impl().sift; }
FeatureType Detector::type() const { return impl().type; }
bool Detector::on_gpu() const { return impl().gpu != nullptr || impl().sift_gpu != nullptr; }

Detector::Impl& Detector::impl() const {
  if (!impl_) throw Error("use of a moved-from glsurf::Detector");
  return *impl_;
}

}  // namespace glsurf
