#include "surf/integral.hpp"

#include <algorithm>
#include <atomic>

#include "gl/error.hpp"

namespace glsurf {

using gl::Format;
using gl::Framebuffer;
using gl::Texture;

namespace {

// IntegralStage::generation(): unique within the process, whichever stage.
std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}

}  // namespace

IntegralStage::IntegralStage(const gl::ShaderSource& shaders, IntegralConfig config) : config_(config) {
  GLSURF_EXPECTS(config.scan_radix >= 2 && config.scan_radix <= 64, "scan_radix must be 2 .. 64");
  programs_ = std::make_unique<ScanPrograms>(shaders, config.scan_radix);
  programs_->need(static_cast<int>(AxisScan::Kind::Packed));  // the rows
  programs_->need(static_cast<int>(AxisScan::Kind::Vector));  // the columns
}

IntegralStage::IntegralStage(IntegralStage&&) noexcept = default;
IntegralStage& IntegralStage::operator=(IntegralStage&&) noexcept = default;
IntegralStage::~IntegralStage() = default;

int packed_width(int width) { return (width + 4) / 4; }

int packed_image_width(int width) { return (width + 3) / 4; }

void upload_packed_image(gl::Texture& texture, const GrayImage& image, std::vector<std::uint8_t>& scratch) {
  const int texels = packed_image_width(image.width);
  GLSURF_EXPECTS(
      texture.format() == Format::RGBA8 && texture.width() == texels && texture.height() == image.height,
      "'" + texture.label() + "' must be the packed RGBA8 texture of the image");
  if (image.width % 4 == 0) {  // the rows are the texels already
    texture.upload(image.pixels.data());
    return;
  }
  const size_t w = static_cast<size_t>(image.width), row = 4 * static_cast<size_t>(texels);
  scratch.assign(row * static_cast<size_t>(image.height), 0);
  for (size_t y = 0; y < static_cast<size_t>(image.height); ++y) {
    std::copy_n(image.pixels.begin() + static_cast<std::ptrdiff_t>(y * w), w,
                scratch.begin() + static_cast<std::ptrdiff_t>(y * row));
  }
  texture.upload(scratch.data());
}

long long integral_linear_texels(int width, int height) { return 4LL * packed_width(width) * (height + 1LL); }

std::string integral_size_problem(int width, int height) {
  return gl::texture_size_problem(width, height, "integral image (with a border)", width + 2LL, height + 2LL);
}

void IntegralStage::configure(int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0, "image size must be positive");
  if (const std::string why = integral_size_problem(width, height); !why.empty()) throw Error(why);
  // Build everything first, then commit: a failure leaves the stage as it was.
  const int radix = config_.scan_radix;
  auto rows = std::make_unique<AxisScan>(glm::ivec2(1, 0), width, height, radix, true, "integral_rows",
                                         AxisScan::Kind::Packed);
  auto columns = std::make_unique<AxisScan>(glm::ivec2(0, 1), height, packed_width(width), radix, false,
                                            "integral", AxisScan::Kind::Vector);
  width_ = width;
  height_ = height;
  linear_ = gl::Texture();
  linear_generation_ = 0;
  generation_ = next_generation();
  ran_ = false;
  rows_ = std::move(rows);
  columns_ = std::move(columns);
}

int IntegralStage::passes_per_run() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  return rows_->passes() + columns_->passes();
}

const Texture& IntegralStage::result() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  // Looked up here, not kept as a pointer: a pointer into the stage would
  // dangle once the stage (or its GpuDetector) is moved.
  return columns_->down[0];
}

std::vector<std::uint32_t> IntegralStage::download_sums() const {
  return download_integral_sums(result(), width_, height_);
}

std::vector<std::uint32_t> download_integral_sums(const Texture& packed, int width, int height) {
  GLSURF_EXPECTS(packed.width() == packed_width(width) && packed.height() == height + 1,
                 "'" + packed.label() + "' must be a packed integral image of a " + std::to_string(width) +
                     "x" + std::to_string(height) + " image");
  const std::vector<std::uint32_t> texels = packed.download_u32();
  const size_t stride = 4 * static_cast<size_t>(packed.width()), w = static_cast<size_t>(width) + 1;
  std::vector<std::uint32_t> sums;
  sums.reserve(w * (static_cast<size_t>(height) + 1));
  for (size_t y = 0; y <= static_cast<size_t>(height); ++y) {
    sums.insert(sums.end(), texels.begin() + static_cast<std::ptrdiff_t>(y * stride),
                texels.begin() + static_cast<std::ptrdiff_t>(y * stride + w));
  }
  return sums;
}

const Texture& IntegralStage::run(gl::PassRunner& runner, const Texture& image) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  const bool packed = image.format() == Format::RGBA8;
  GLSURF_EXPECTS(packed
                     ? image.width() == packed_image_width(width_) && image.height() == height_
                     : image.width() == width_ && image.height() == height_ && image.format() == Format::R8,
                 "input must be the configured size and R8 (or packed RGBA8)");
  // Rows, then columns.
  const int source = packed ? 2 : 1;
  programs_->need_image(source);
  const Texture& row_sums = rows_->run(runner, *programs_, image, source);
  columns_->run(runner, *programs_, row_sums);
  generation_ = next_generation();
  ran_ = true;
  gl::check_gl_errors("integral image");
  return result();
}

const Texture* IntegralStage::linear_copy(gl::PassRunner& runner, int limit) {
  GLSURF_EXPECTS(ran_, "run() before linear_copy()");
  const Texture& integral = result();
  const long long texels = integral_linear_texels(width_, height_);
  if (texels > limit) return nullptr;
  if (linear_generation_ == generation_) return &linear_;
  if (!linear_) linear_ = Texture::buffer(static_cast<int>(texels), Format::R32UI, "integral_linear");
  linear_.copy_rows(integral, 0, integral.height());
  runner.after_transfer();
  linear_generation_ = generation_;
  return &linear_;
}

}  // namespace glsurf
