#include "surf/descriptor.hpp"

#include <algorithm>
#include <cstdio>

#include "cpu/descriptor.hpp"
#include "gl/error.hpp"
#include "gl/shared_constants.hpp"
#include "surf/blocks.hpp"

namespace glsurf {

namespace {

constexpr int kWidth = shader::kListWidth;
// sums (before normalize): a 4 x 4 tile per keypoint, one texel per
// sub-region (shaders/common/blocks.glsl).
constexpr int kDescriptorTile = 4;

using blocks::rows_for;
using blocks::tile_rows;

std::vector<std::string> extended_define(const DetectorConfig& config) {
  if (!config.extended) return {};
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%.9g", cpu::kSplitTolerance);
  return {"EXTENDED", std::string("SPLIT_TOLERANCE ") + tolerance};
}

// The descriptor's Haar side and Gaussian weight, in s (cpu::describe).
std::vector<std::string> descriptor_defines(const DetectorConfig& config) {
  std::vector<std::string> defines = extended_define(config);
  char haar[32], sigma[32];
  std::snprintf(haar, sizeof haar, "%.9g", cpu::kDescriptorHaar);
  std::snprintf(sigma, sizeof sigma, "%.9g", cpu::kDescriptorSigma);
  defines.push_back(std::string("HAAR_SIDE ") + haar);
  defines.push_back(std::string("SIGMA ") + sigma);
  return defines;
}

}  // namespace

DescriptorStage::DescriptorStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config),
      shaders_(shaders),
      norms_(shaders, config),
      normalize_(shaders, config),
      gather_(shaders, config),
      gather_signs_(shaders) {}

DescriptorStage::HalvesPass::HalvesPass(const gl::ShaderSource& shaders, const char* key,
                                        const std::string& fragment, const DetectorConfig& config)
    : Pass(shaders, key, fragment, extended_define(config)), extended_(config.extended) {}

double DescriptorStage::bytes_per_entry(const DetectorConfig& config) {
  const bool second = config.second_orientation > 0 && !config.upright;
  const double values = 4.0 * descriptor_size(config);  // float32 values of one descriptor entry
  // second_entries RG32F; per descriptor entry keypoint_order RG32F,
  // descriptor_scales R32F, descriptors_raw and descriptors, read back and
  // sorted (Features: the read-back copy and the sorted one are held
  // together).
  return (second ? 8.0 : 0.0) + (second ? 2.0 : 1.0) * (12.0 + 4.0 * values);
}

void DescriptorStage::configure(int capacity) {
  GLSURF_EXPECTS(capacity > 0, "capacity must be positive");
  const bool second = second_orientation();
  const int entries = second ? 2 * capacity : capacity;
  gl::Texture order(kWidth, rows_for(entries), gl::Format::RG32F, "keypoint_order");
  // A texel, so that the sums program can bind it; sized when used.
  gl::Texture extra = second ? gl::Texture(kWidth, rows_for(capacity), gl::Format::RG32F, "second_entries")
                             : gl::Texture(1, 1, gl::Format::RG32F, "second_entries");
  const int halves = config_.extended ? 2 : 1;
  gl::Texture raw[2], normalised[2];
  std::vector<const gl::Texture*> raw_list, final_list;
  for (int h = 0; h < halves; ++h) {
    raw[h] = gl::Texture(kWidth, tile_rows(entries, kDescriptorTile, kDescriptorTile), gl::Format::RGBA32F,
                         "descriptors_raw_" + std::to_string(h));
    normalised[h] =
        gl::Texture(kWidth, rows_for(entries * 16), gl::Format::RGBA32F, "descriptors_" + std::to_string(h));
    raw_list.push_back(&raw[h]);
    final_list.push_back(&normalised[h]);
  }
  gl::Framebuffer raw_target(raw_list, "descriptors_raw");
  gl::Framebuffer final_target(final_list, "descriptors");
  gl::Texture scales(kWidth, rows_for(entries), gl::Format::R32F, "descriptor_scales");
  gl::Framebuffer scales_target({&scales}, "descriptor_scales");

  capacity_ = capacity;
  order_ = std::move(order);
  extra_ = std::move(extra);
  primary_ = 0;
  second_source_.clear();
  for (int h = 0; h < 2; ++h) {
    raw_[h] = std::move(raw[h]);
    final_[h] = std::move(normalised[h]);
  }
  raw_target_ = std::move(raw_target);
  final_target_ = std::move(final_target);
  scales_ = std::move(scales);
  scales_target_ = std::move(scales_target);
}

void DescriptorStage::build_sums(const IntegralQuads& quads) {
  const int kind = quads.in_buffer() ? 1 : 0;
  if (kind == sums_quads_kind_) return;
  std::vector<std::string> defines = descriptor_defines(config_);
  if (quads.in_buffer()) defines.push_back("LINEAR_FETCH");
  sums_ = SumsPass(shaders_, defines);
  sums_quads_kind_ = kind;
}

int DescriptorStage::run(gl::PassRunner& runner, const gl::Texture& list, const IntegralQuads& quads,
                         const gl::Texture& angles, int count,
                         const OrientationStage::SecondOrientations* second) {
  GLSURF_EXPECTS(capacity_ > 0, "configure() before run()");
  GLSURF_EXPECTS(count >= 0 && count <= capacity_, "more keypoints than configured");
  primary_ = count;
  second_source_.clear();
  if (count == 0) return 0;
  if (second && second_orientation()) {
    std::vector<float> entries(static_cast<size_t>(2) * kWidth * extra_.height(), 0.0f);
    for (size_t i = 0; i < second->source.size(); ++i) {
      entries[2 * i] = static_cast<float>(second->source[i]);
      entries[2 * i + 1] = second->angle[i];
    }
    if (!second->source.empty()) extra_.upload(entries.data());
    runner.after_transfer();
    second_source_ = second->source;
  }
  build_sums(quads);
  const int total = count + static_cast<int>(second_source_.size());
  const gl::PassRunner::Region tiles{0, 0, kWidth, tile_rows(total, kDescriptorTile, kDescriptorTile)};
  const gl::PassRunner::Region runs{0, 0, kWidth, rows_for(total * 16)};
  sums_.list(list, angles).entries(total, count, extra_).quads(quads).draw(runner, raw_target_, tiles);
  const gl::PassRunner::Region descriptors{0, 0, kWidth, rows_for(total)};
  norms_.sums(raw_, total).draw(runner, scales_target_, descriptors);
  normalize_.sums(raw_, total).scales(scales_).draw(runner, final_target_, runs);
  gl::check_gl_errors("descriptor");
  return total;
}

std::vector<float> DescriptorStage::read(int entries) const {
  std::vector<float> descriptors;
  if (entries == 0) return descriptors;
  const int halves = config_.extended ? 2 : 1;
  const int size = descriptor_size(config_);
  descriptors.assign(static_cast<size_t>(entries) * size, 0.0f);
  for (int h = 0; h < halves; ++h) {
    const std::vector<float> texels = final_target_.read_f32(h, 0, 0, kWidth, rows_for(entries * 16));
    for (int k = 0; k < entries; ++k) {
      for (int r = 0; r < 16; ++r) {
        const float* t = &texels[(static_cast<size_t>(k) * 16 + r) * 4];
        float* out = &descriptors[static_cast<size_t>(k) * size + r * 4 * halves + h * 4];
        // -0 (a shader's product of 0 and a negative) read as 0, as the CPU
        // reference's sums give it.
        for (int c = 0; c < 4; ++c) out[c] = t[c] == 0.0f ? 0.0f : t[c];
      }
    }
  }
  return descriptors;
}

void DescriptorStage::gather(gl::PassRunner& runner, const gl::Texture& list, const std::vector<int>& order,
                             DescriptorTextures& out) {
  const int count = static_cast<int>(order.size());
  const int texels = descriptor_size(config_) / 4;
  out.count = count;
  out.texels = texels;
  // Reallocated only when the size changes (a viewer gathers every frame).
  if (!out.descriptors || out.descriptors.height() != rows_for(count * texels)) {
    out.descriptors =
        gl::Texture(kWidth, rows_for(count * texels), gl::Format::RGBA32F, "resident_descriptors");
  }
  if (!out.signs || out.signs.height() != rows_for(count)) {
    out.signs = gl::Texture(kWidth, rows_for(count), gl::Format::R32F, "resident_signs");
  }
  if (count == 0) return;
  // The order is the one small upload: 8 bytes per keypoint, its
  // descriptor entry and its list entry.
  gl::Texture& order_texture = order_;
  std::vector<float> values(static_cast<size_t>(2) * kWidth * order_texture.height(), 0.0f);
  for (int k = 0; k < count; ++k) {
    const int entry = order[static_cast<size_t>(k)];
    GLSURF_EXPECTS(entry >= 0 && entry < primary_ + static_cast<int>(second_source_.size()),
                   "gather: not an entry of the last run()");
    values[2 * static_cast<size_t>(k)] = static_cast<float>(entry);
    values[2 * static_cast<size_t>(k) + 1] =
        static_cast<float>(entry < primary_ ? entry : second_source_[static_cast<size_t>(entry - primary_)]);
  }
  order_texture.upload(values.data());
  const gl::Framebuffer descriptors_target({&out.descriptors}, "resident_descriptors");
  const gl::Framebuffer signs_target({&out.signs}, "resident_signs");
  const gl::PassRunner::Region rows{0, 0, kWidth, rows_for(count * texels)};
  gather_.descriptors(final_, texels).order(order_texture, count).draw(runner, descriptors_target, rows);
  gather_signs_.list(list)
      .order(order_texture, count)
      .draw(runner, signs_target, {0, 0, kWidth, rows_for(count)});
  gl::check_gl_errors("gather descriptors");
}

}  // namespace glsurf
