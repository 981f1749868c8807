#include "sift/descriptor.hpp"

#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"
#include "surf/blocks.hpp"

namespace glsurf::sift {

namespace {

constexpr int kWidth = shader::kListWidth;
constexpr int kTile = 4;  // the bins pass: a 4 x 4 tile per entry, texel (c, r) spatial bin (r, c)
using blocks::rows_for;
using blocks::tile_rows;

}  // namespace

DescriptorStage::BinsPass::BinsPass(const gl::ShaderSource& shaders, const SiftConfig& config)
    : Pass(shaders, "sift_descriptor_bins", "sift/descriptor_bins.frag",
           {"MAX_OCTAVES " + std::to_string(kMaxOctaves)}) {
  // A fragment's pixels: the rotated 2 x 2 bin square of side 2 hist_width
  // (3 sigma) at its worst (45 degrees), with a pixel to spare around it,
  // each 4 fetches, an atan and an exp.
  const int s = config.n_octave_layers;
  const double hist_width = 3.0 * config.sigma * std::pow(2.0, (s + 0.5) / s);
  const double side = 2.0 * hist_width * std::sqrt(2.0) + 3.0;
  set_work(static_cast<std::int64_t>(side * side * 8));
}

DescriptorStage::DescriptorStage(const gl::ShaderSource& shaders, const SiftConfig& config)
    : bins_(shaders, config), norms_(shaders), normalize_(shaders, config.root_sift) {}

void DescriptorStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  if (capacity == capacity_) return;
  bins_target_ = gl::Framebuffer();
  norms_target_ = gl::Framebuffer();
  descriptors_target_ = gl::Framebuffer();
  low_ = gl::Texture();
  high_ = gl::Texture();
  norms_tex_ = gl::Texture();
  descriptors_ = gl::Texture();
  const int tiles = tile_rows(capacity, kTile, kTile);
  gl::Texture low(kWidth, tiles, gl::Format::RGBA32F, "sift_descriptor_bins_low");
  gl::Texture high(kWidth, tiles, gl::Format::RGBA32F, "sift_descriptor_bins_high");
  gl::Texture norms(kWidth, rows_for(capacity), gl::Format::RGBA32F, "sift_descriptor_norms");
  gl::Texture descriptors(kWidth, rows_for(capacity * kTexels), gl::Format::RGBA32F, "sift_descriptors");
  gl::Framebuffer bins_target({&low, &high}, "sift_descriptor_bins");
  gl::Framebuffer norms_target({&norms}, "sift_descriptor_norms");
  gl::Framebuffer descriptors_target({&descriptors}, "sift_descriptors");
  low_ = std::move(low);
  high_ = std::move(high);
  norms_tex_ = std::move(norms);
  descriptors_ = std::move(descriptors);
  bins_target_ = std::move(bins_target);
  norms_target_ = std::move(norms_target);
  descriptors_target_ = std::move(descriptors_target);
  capacity_ = capacity;
}

void DescriptorStage::run(gl::PassRunner& runner, const gl::Texture& gaussian, const AtlasLayout& layout,
                          const gl::Texture& points, const gl::Texture& scales, int count) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more entries than configured");
  if (count == 0) return;
  bins_.gaussian(gaussian, layout)
      .list(points, scales, count)
      .draw(runner, bins_target_, {0, 0, kWidth, tile_rows(count, kTile, kTile)});
  norms_.bins(low_, high_, count).draw(runner, norms_target_, {0, 0, kWidth, rows_for(count)});
  normalize_.bins(low_, high_, count)
      .norms(norms_tex_)
      .draw(runner, descriptors_target_, {0, 0, kWidth, rows_for(count * kTexels)});
  gl::check_gl_errors("sift descriptor");
}

std::vector<float> DescriptorStage::read(int count) const {
  if (count == 0) return {};
  std::vector<float> values = descriptors_target_.read_f32(0, 0, 0, kWidth, rows_for(count * kTexels));
  values.resize(static_cast<size_t>(count) * kSize);
  return values;
}

}  // namespace glsurf::sift
