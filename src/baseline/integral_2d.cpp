#include "baseline/integral_2d.hpp"

#include <algorithm>
#include <string>

#include "gl/error.hpp"
#include "surf/integral.hpp"

namespace glsurf::baseline {

using gl::Format;
using gl::Framebuffer;
using gl::Texture;

namespace {
int half_up(int n) { return (n + 1) / 2; }

const Integral2DConfig& checked(const Integral2DConfig& config) {
  GLSURF_EXPECTS(config.top_pixels >= 0, "top_pixels must be >= 0");
  GLSURF_EXPECTS(config.scan_radix >= 2 && config.scan_radix <= 64, "scan_radix must be 2 .. 64");
  return config;
}
}  // namespace

// Level k >= 1 of the 2-D pyramid and what the down-sweep needs from it.
struct Integral2DStage::Level {
  Texture block, top_row, left_column;  // U_k, H_k, V_k
  Framebuffer up_target;
  AxisScan row_prefix, col_prefix;  // X_k (scan of H_k), Y_k (scan of V_k)
  Texture below;                    // D_{k-1}
  Framebuffer below_target;

  Level(int k, glm::ivec2 size, glm::ivec2 finer, int radix)
      : block(size.x, size.y, Format::R32UI, "integral_U" + std::to_string(k)),
        top_row(size.x, size.y, Format::R32UI, "integral_H" + std::to_string(k)),
        left_column(size.x, size.y, Format::R32UI, "integral_V" + std::to_string(k)),
        up_target({&block, &top_row, &left_column}, "integral_UHV" + std::to_string(k)),
        row_prefix({1, 0}, size.x, size.y, radix, false, "integral_X" + std::to_string(k)),
        col_prefix({0, 1}, size.y, size.x, radix, false, "integral_Y" + std::to_string(k)),
        below(finer.x + 1, finer.y + 1, Format::R32UI,
              k == 1 ? std::string("integral_unpacked") : "integral_D" + std::to_string(k - 1)),
        below_target({&below}, below.label()) {}
};

std::vector<std::string> Integral2DStage::source_defines(bool reads_image) {
  if (reads_image) return {"SOURCE_UNORM8"};
  return {};
}

// The first passes read the R8 image (SOURCE_UNORM8), the others R32UI levels.
Integral2DStage::Integral2DStage(const gl::ShaderSource& shaders, Integral2DConfig config)
    : config_(checked(config)),
      scans_(shaders, config.scan_radix),
      sweep2d_up_{Sweep2DUpPass(shaders, false), Sweep2DUpPass(shaders, true)},
      sweep2d_down_{Sweep2DDownPass(shaders, false), Sweep2DDownPass(shaders, true)},
      doubling_{DoublingPass(shaders, false), DoublingPass(shaders, true)},
      pack_(shaders) {}

Integral2DStage::Integral2DStage(Integral2DStage&&) noexcept = default;
Integral2DStage& Integral2DStage::operator=(Integral2DStage&&) noexcept = default;
Integral2DStage::~Integral2DStage() = default;

void Integral2DStage::configure(int width, int height) {
  GLSURF_EXPECTS(width > 0 && height > 0, "image size must be positive");
  if (const std::string why = integral_size_problem(width, height); !why.empty()) throw Error(why);
  // Build everything first, then commit: a failure leaves the stage as it was.
  std::vector<Level> levels;
  glm::ivec2 size(width, height);  // of U_k
  while (static_cast<long long>(size.x) * size.y > config_.top_pixels && size != glm::ivec2(1)) {
    const glm::ivec2 finer = size;
    size = glm::ivec2(half_up(size.x), half_up(size.y));
    levels.emplace_back(static_cast<int>(levels.size()) + 1, size, finer, config_.scan_radix);
  }
  int top_steps = 1;  // at least one step, which also applies the (1, 1) shift
  while ((1 << top_steps) < std::max(size.x, size.y)) ++top_steps;
  gl::PingPong top(size.x + 1, size.y + 1, Format::R32UI,
                   levels.empty() ? "integral_unpacked" : "integral_D" + std::to_string(levels.size()));
  Texture packed(packed_width(width), height + 1, Format::RGBA32UI, "integral");
  Framebuffer packed_target({&packed}, "integral");
  width_ = width;
  height_ = height;
  levels_ = std::move(levels);
  top_ = std::move(top);
  top_steps_ = top_steps;
  packed_ = std::move(packed);
  packed_target_ = std::move(packed_target);
}

int Integral2DStage::passes_per_run() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  int n = top_steps_ + 1;  // and the packing
  for (const Level& l : levels_) n += 2 + l.row_prefix.passes() + l.col_prefix.passes();
  return n;
}

const Texture& Integral2DStage::result() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  return packed_;
}

std::vector<std::uint32_t> Integral2DStage::download_sums() const {
  return download_integral_sums(result(), width_, height_);
}

const Texture& Integral2DStage::run(gl::PassRunner& runner, const Texture& image) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  GLSURF_EXPECTS(image.width() == width_ && image.height() == height_ && image.format() == Format::R8,
                 "input must be the configured size and R8");
  const int levels = static_cast<int>(levels_.size());
  auto block = [&](int k) -> const Texture& { return k == 0 ? image : levels_[k - 1].block; };

  // Up-sweep: U_k, H_k, V_k for k = 1..K (eqs. 7-9).
  for (int k = 1; k <= levels; ++k) {
    sweep2d_up_[k == 1].finer_blocks(block(k - 1)).draw(runner, levels_[k - 1].up_target);
  }
  // Row prefix X_k of H_k and column prefix Y_k of V_k (eqs. 10-11).
  for (const Level& l : levels_) {
    l.row_prefix.run(runner, scans_, l.top_row);
    l.col_prefix.run(runner, scans_, l.left_column);
  }
  // Top of the pyramid: D_K by ping-pong doubling (eq. 13), ending in texture 0.
  top_.reset(top_steps_);
  for (int j = 0; j < top_steps_; ++j) {
    const bool first = j == 0;
    const Texture& source = first ? block(levels) : top_.front();
    doubling_[first && levels == 0].sums(source).step(j).draw(runner, top_.back());
    top_.swap();
  }
  // Down-sweep: D_{k-1} from D_k, X_k, Y_k and U_{k-1} (eq. 12).
  for (int k = levels; k >= 1; --k) {
    const Level& l = levels_[k - 1];
    const Texture& coarse = k == levels ? top_.front() : levels_[k].below;
    sweep2d_down_[k == 1]
        .coarse_prefix(coarse)
        .prefixes(l.row_prefix.down[0], l.col_prefix.down[0])
        .finer_blocks(block(k - 1))
        .draw(runner, l.below_target);
  }
  // Four columns to a texel, as the 1-D method's result.
  pack_.unpacked(levels_.empty() ? top_.texture(0) : levels_.front().below).draw(runner, packed_target_);
  gl::check_gl_errors("integral image (2-D)");
  return result();
}

}  // namespace glsurf::baseline
