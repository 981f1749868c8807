#include "sift/scale_space.hpp"

#include <algorithm>
#include <cstring>

#include "gl/error.hpp"

namespace glsurf::sift {

namespace {

// The defines of one blur program: its axis, radius, and for the columns
// whether they read the scratch's buffer copy.
std::vector<std::string> blur_defines(bool rows, const std::vector<float>& weights, bool linear) {
  std::vector<std::string> defines = {"RADIUS " + std::to_string(weights.size() / 2)};
  if (rows) defines.emplace_back("ROWS");
  if (linear) defines.emplace_back("LINEAR_FETCH");
  return defines;
}

// The kernels of the stage: [0] the base blur, [i] level i's increment (i =
// 1 .. s + 2), [s + 3] the one-tap copy.
std::vector<std::vector<float>> kernels(const SiftConfig& config) {
  std::vector<std::vector<float>> k;
  k.push_back(cpu::sift::gaussian_kernel(cpu::sift::increment_sigma(config, 0)));
  for (int i = 1; i <= config.n_octave_layers + 2; ++i) {
    k.push_back(cpu::sift::gaussian_kernel(cpu::sift::increment_sigma(config, i)));
  }
  k.push_back({1.0f});
  return k;
}

// A packed image's rectangle (pixels, x a multiple of kPack) as the
// shaders take a source: x in texels, y, and the size in pixels.
glm::ivec4 texels(glm::ivec4 rect) { return {rect.x / kPack, rect.y, rect.z, rect.w}; }

// The texels a packed image's rectangle covers.
glm::ivec4 texel_region(glm::ivec4 rect) {
  return {rect.x / kPack, rect.y, (rect.z + kPack - 1) / kPack, rect.w};
}

}  // namespace

ScaleSpaceStage::BlurPass::BlurPass(const gl::ShaderSource& shaders, bool rows,
                                    const std::vector<float>& weights, bool linear)
    : Pass(shaders, rows ? "sift_blur_rows" : "sift_blur_columns", "sift/blur.frag",
           blur_defines(rows, weights, linear)) {
  set_work(static_cast<std::int64_t>(4 * weights.size()));
  packed_.assign((weights.size() + 3) / 4, glm::ivec4(0));
  for (size_t i = 0; i < weights.size(); ++i)
    std::memcpy(&packed_[i / 4][static_cast<int>(i % 4)], &weights[i], 4);
}

ScaleSpaceStage::ScaleSpaceStage(const gl::ShaderSource& shaders, const SiftConfig& config)
    : config_(config),
      shaders_(shaders),
      base_(shaders, config.first_octave < 0),
      downsample_(shaders),
      dog_pass_(shaders) {
  const std::vector<std::vector<float>> k = kernels(config);
  for (const std::vector<float>& w : k) {
    if (static_cast<int>(w.size() / 2) > kMaxBlurRadius) {
      throw Error("SIFT blur of radius " + std::to_string(w.size() / 2) + " (sigma " +
                  std::to_string(config.sigma) + ", " + std::to_string(config.n_octave_layers) +
                  " layers) is wider than the GPU's " + std::to_string(kMaxBlurRadius) +
                  "; lower sigma or use more layers");
    }
  }
  // The copy (the last kernel) needs no rows pass; the columns passes are
  // built by configure(), for the kind of scratch it chooses.
  for (size_t i = 0; i + 1 < k.size(); ++i) rows_.emplace_back(shaders, true, k[i], false);
  kernels_ = k;
}

std::string ScaleSpaceStage::size_problem(int width, int height, const SiftConfig& config) {
  const std::vector<cpu::sift::OctaveSize> octaves = cpu::sift::octave_sizes(width, height, config);
  if (octaves.empty()) {
    return "image of " + std::to_string(width) + "x" + std::to_string(height) +
           " is too small for SIFT's octaves";
  }
  const int s = config.n_octave_layers;
  const AtlasLayout gaussian = atlas_layout(octaves, s + 3, kPack);
  const int texels = gaussian.size.x / kPack;
  if (std::string why = gl::texture_size_problem(width, height, "Gaussian atlas", texels, gaussian.size.y);
      !why.empty()) {
    return why;
  }
  if (!gl::texture_fits(texels, gaussian.size.y, gl::Format::RGBA32F)) {
    return "image of " + std::to_string(width) + "x" + std::to_string(height) +
           " is too large: the driver cannot make its Gaussian atlas of " + std::to_string(texels) + "x" +
           std::to_string(gaussian.size.y) + " texels of 16 bytes";
  }
  return "";
}

void ScaleSpaceStage::configure(int width, int height) {
  if (const std::string why = size_problem(width, height, config_); !why.empty()) throw Error(why);
  width_ = height_ = 0;
  std::vector<cpu::sift::OctaveSize> octaves = cpu::sift::octave_sizes(width, height, config_);
  const int s = config_.n_octave_layers;
  AtlasLayout gaussian_layout = atlas_layout(octaves, s + 3, kPack);
  AtlasLayout dog_layout = atlas_layout(octaves, s + 2, kPack);
  const glm::ivec2 scratch_size((octaves.front().width + 3) / 4, octaves.front().height);
  const long long scratch_texels = static_cast<long long>(scratch_size.x) * scratch_size.y;
  const bool linear = scratch_texels <= gl::max_buffer_texels(buffer_limit_);
  gl::Texture image(width, height, gl::Format::R8, "sift_image");
  gl::Texture scratch(scratch_size.x, scratch_size.y, gl::Format::RGBA32F, "sift_scratch");
  gl::Texture scratch_linear;
  if (linear) {
    scratch_linear =
        gl::Texture::buffer(static_cast<int>(scratch_texels), gl::Format::RGBA32F, "sift_scratch_linear");
  }
  gl::Texture gaussian(gaussian_layout.size.x / kPack, gaussian_layout.size.y, gl::Format::RGBA32F,
                       "sift_gaussian");
  gl::Texture dog(dog_layout.size.x / kPack, dog_layout.size.y, gl::Format::RGBA32F, "sift_dog");
  gl::Framebuffer scratch_target({&scratch}, "sift_scratch");
  gl::Framebuffer gaussian_target({&gaussian}, "sift_gaussian");
  gl::Framebuffer dog_target({&dog}, "sift_dog");
  std::vector<BlurPass> columns;
  if (linear != linear_ || columns_.empty()) {
    for (const std::vector<float>& w : kernels_) columns.emplace_back(shaders_, false, w, linear);
  }

  if (!columns.empty()) columns_ = std::move(columns);
  linear_ = linear;
  octaves_ = std::move(octaves);
  gaussian_layout_ = std::move(gaussian_layout);
  dog_layout_ = std::move(dog_layout);
  image_ = std::move(image);
  scratch_ = std::move(scratch);
  scratch_linear_ = std::move(scratch_linear);
  gaussian_ = std::move(gaussian);
  dog_ = std::move(dog);
  scratch_target_ = std::move(scratch_target);
  gaussian_target_ = std::move(gaussian_target);
  dog_target_ = std::move(dog_target);
  width_ = width;
  height_ = height;
}

void ScaleSpaceStage::blur(gl::PassRunner& runner, int kernel, const gl::Texture& source,
                           glm::ivec4 source_rect, glm::ivec4 target) {
  BlurPass& rows = rows_[static_cast<size_t>(kernel)];
  rows.weights().source(source, texels(source_rect)).origin(glm::ivec2(0));
  rows.draw(runner, scratch_target_, {0, 0, (target.z + kPack - 1) / kPack, target.w});
  columns(runner, kernel, target);
}

void ScaleSpaceStage::columns(gl::PassRunner& runner, int kernel, glm::ivec4 target) {
  const gl::Texture* scratch = &scratch_;
  if (linear_) {
    scratch_linear_.copy_rows(scratch_, 0, target.w);
    runner.after_transfer();
    scratch = &scratch_linear_;
  }
  BlurPass& pass = columns_[static_cast<size_t>(kernel)];
  const glm::ivec4 region = texel_region(target);
  pass.weights()
      .source(*scratch, glm::ivec4(scratch_.width(), 0, target.z, target.w))
      .origin(glm::ivec2(region.x, region.y));
  pass.draw(runner, gaussian_target_, {region.x, region.y, region.z, region.w});
}

void ScaleSpaceStage::run(gl::PassRunner& runner, const GrayImage& image) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  GLSURF_EXPECTS(image.width == width_ && image.height == height_,
                 "the stage is configured for another size");
  image_.upload(image.pixels.data());
  runner.after_transfer();
  const int s = config_.n_octave_layers;
  const int copy = s + 3;  // the one-tap kernel
  for (size_t k = 0; k < octaves_.size(); ++k) {
    const int o = static_cast<int>(k);
    if (k == 0) {
      // The base (doubled) into cell 1, blurred into cell 0.
      const glm::ivec4 cell = gaussian_layout_.rect(0, 1), region = texel_region(cell);
      base_.image(image_)
          .size(glm::ivec2(cell.z, cell.w))
          .origin(glm::ivec2(region.x, region.y))
          .draw(runner, gaussian_target_, {region.x, region.y, region.z, region.w});
      blur(runner, 0, gaussian_, cell, gaussian_layout_.rect(0, 0));
    } else {
      // Level s of the octave before, every second pixel, copied into cell 0.
      const glm::ivec4 cell = gaussian_layout_.rect(o, 0);
      downsample_.source(gaussian_, texels(gaussian_layout_.rect(o - 1, s)))
          .draw(runner, scratch_target_, {0, 0, (cell.z + kPack - 1) / kPack, cell.w});
      columns(runner, copy, cell);
    }
    for (int i = 1; i <= s + 2; ++i)
      blur(runner, i, gaussian_, gaussian_layout_.rect(o, i - 1), gaussian_layout_.rect(o, i));
  }
  for (size_t k = 0; k < octaves_.size(); ++k) {
    const int o = static_cast<int>(k);
    for (int i = 0; i < s + 2; ++i) {
      const glm::ivec4 lower = texel_region(gaussian_layout_.rect(o, i));
      const glm::ivec4 upper = texel_region(gaussian_layout_.rect(o, i + 1));
      const glm::ivec4 cell = texel_region(dog_layout_.rect(o, i));
      dog_pass_.gaussian(gaussian_, glm::ivec2(lower.x, lower.y), glm::ivec2(upper.x, upper.y))
          .origin(glm::ivec2(cell.x, cell.y))
          .draw(runner, dog_target_, {cell.x, cell.y, cell.z, cell.w});
    }
  }
  gl::check_gl_errors("sift scale space");
}

}  // namespace glsurf::sift
