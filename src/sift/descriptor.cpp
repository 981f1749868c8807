#include "sift/descriptor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gl/error.hpp"
#include "gl/shared_constants.hpp"
#include "surf/blocks.hpp"

namespace glsurf::sift {

namespace {

constexpr int kWidth = shader::kListWidth;
constexpr int kCellTile = 5;  // the cells pass: a 5 x 5 tile per entry, texel (c0 + 1, r0 + 1) cell (r0, c0)
using blocks::rows_for;
using blocks::tile_rows;
static_assert(DescriptorStage::kChunk % (kWidth / DescriptorStage::kTexels) == 0,
              "a chunk's descriptors must start a row");

}  // namespace

DescriptorStage::CellsPass::CellsPass(const gl::ShaderSource& shaders, const SiftConfig& config)
    : Pass(shaders, "sift_descriptor_cells", "sift/descriptor_cells.frag",
           {"MAX_OCTAVES " + std::to_string(kMaxOctaves)}) {
  // A fragment's pixels: a cell, a hist_width (3 sigma) square, at its
  // largest and turned by 45 degrees (twice the area) with a row's spare
  // pixel, each 3 fetches, an atan, an exp and 32 multiply-adds.
  const int s = config.n_octave_layers;
  const double hist_width = 3.0 * config.sigma * std::pow(2.0, (s + 0.5) / s);
  set_work(static_cast<std::int64_t>((2 * hist_width * hist_width + 2 * hist_width) * 16));
}

DescriptorStage::DescriptorStage(const gl::ShaderSource& shaders, const SiftConfig& config)
    : cells_(shaders, config), norms_(shaders), normalize_(shaders, config.root_sift) {}

double DescriptorStage::chunk_bytes(int capacity) {
  const int chunk = std::min(capacity, kChunk);
  return 16.0 * kCellTargets * kWidth * tile_rows(chunk, kCellTile, kCellTile) +
         16.0 * kWidth * rows_for(chunk);
}

void DescriptorStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  if (capacity == capacity_) return;
  descriptors_target_ = gl::Framebuffer();
  descriptors_ = gl::Texture();
  gl::Texture descriptors(kWidth, rows_for(capacity * kTexels), gl::Format::RGBA32F, "sift_descriptors");
  gl::Framebuffer descriptors_target({&descriptors}, "sift_descriptors");
  descriptors_ = std::move(descriptors);
  descriptors_target_ = std::move(descriptors_target);
  const int chunk = std::min(capacity, kChunk);
  if (chunk != chunk_) {
    cells_target_ = gl::Framebuffer();
    norms_target_ = gl::Framebuffer();
    std::vector<const gl::Texture*> targets;
    for (int i = 0; i < kCellTargets; ++i) {
      cell_sums_[i] = gl::Texture();
      cell_sums_[i] = gl::Texture(kWidth, tile_rows(chunk, kCellTile, kCellTile), gl::Format::RGBA32F,
                                  "sift_descriptor_cells_" + std::to_string(i));
      targets.push_back(&cell_sums_[i]);
    }
    cells_target_ = gl::Framebuffer(targets, "sift_descriptor_cells");
    norms_tex_ = gl::Texture();
    norms_tex_ = gl::Texture(kWidth, rows_for(chunk), gl::Format::RGBA32F, "sift_descriptor_norms");
    norms_target_ = gl::Framebuffer({&norms_tex_}, "sift_descriptor_norms");
    chunk_ = chunk;
  }
  capacity_ = capacity;
}

void DescriptorStage::run(gl::PassRunner& runner, const gl::Texture& gaussian, const AtlasLayout& layout,
                          const gl::Texture& points, const gl::Texture& scales, int count) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more entries than configured");
  for (int first = 0; first < count; first += kChunk) {
    const int n = std::min(kChunk, count - first);
    cells_.gaussian(gaussian, layout)
        .list(points, scales)
        .chunk(first, n)
        .draw(runner, cells_target_, {0, 0, kWidth, tile_rows(n, kCellTile, kCellTile)});
    norms_.sums(cell_sums_, n).draw(runner, norms_target_, {0, 0, kWidth, rows_for(n)});
    const int first_row = first * kTexels / kWidth;
    normalize_.sums(cell_sums_, norms_tex_)
        .chunk(first, n)
        .draw(runner, descriptors_target_, {0, first_row, kWidth, rows_for(n * kTexels)});
  }
  gl::check_gl_errors("sift descriptor");
}

std::vector<float> DescriptorStage::read(int count) const {
  if (count == 0) return {};
  std::vector<float> values = descriptors_target_.read_f32(0, 0, 0, kWidth, rows_for(count * kTexels));
  values.resize(static_cast<size_t>(count) * kSize);
  return values;
}

}  // namespace glsurf::sift
