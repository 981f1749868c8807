#include "surf/integral.hpp"

#include <algorithm>
#include <atomic>

#include "gl/error.hpp"

namespace glsurf {

using gl::Format;
using gl::Framebuffer;
using gl::Texture;

const char* to_string(IntegralMethod method) {
  switch (method) {
    case IntegralMethod::Blelloch2D:
      return "2-D (Terriberry)";
    case IntegralMethod::Blelloch1D:
      break;
  }
  return "1-D (rows, columns)";
}

namespace {

// IntegralStage::generation(): unique within the process, whichever stage.
std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}

int half_up(int n) { return (n + 1) / 2; }
int divide_up(int n, int d) { return (n + d - 1) / d; }

// Size of a texture `along` texels along `axis` and `across` texels across it.
glm::ivec2 oriented(glm::ivec2 axis, int along, int across) {
  return axis.x == 1 ? glm::ivec2(along, across) : glm::ivec2(across, along);
}

}  // namespace

// The programs a method uses, each compiled once (each costs memory on a
// software renderer). The scans' variants are [kind][source]: kind as
// AxisScan::Kind; source 0 for an up-sweep level (R32UI, or RGBA32UI), 1 for
// the R8 image (SOURCE_UNORM8), 2 for the packed RGBA8 image
// (SOURCE_PACKED8). Those that read the image are compiled for a kind of
// image at the first run() with it.
struct IntegralStage::Programs {
  gl::Program scan_up[3][3], scan_down[3][3], scan_down_top[3][3];
  gl::Program sweep2d_up[2], sweep2d_down[2], doubling[2], pack;
  gl::ShaderSource src;
  int radix;
  bool image_programs[3] = {true, false, false};

  gl::Program scan(const char* file, int kind, int source, bool top) const {
    static const char* const kSource[] = {nullptr, "SOURCE_UNORM8", "SOURCE_PACKED8"};
    std::vector<std::string> defs{"RADIX " + std::to_string(radix)};
    if (kSource[source]) defs.push_back(kSource[source]);
    if (kind == 1) defs.push_back("PACKED");
    if (kind == 2) defs.push_back("VECTOR");
    if (top) defs.push_back("TOP_LEVEL");
    return gl::Program(src, "common/fullscreen.vert", file, defs);
  }

  Programs(const gl::ShaderSource& shaders, IntegralMethod method, int radix_) : src(shaders), radix(radix_) {
    const std::string vs = "common/fullscreen.vert";
    // Rows: R32UI (RGBA32UI with local prefixes) levels above the first, the
    // last level packed (from the local prefixes; reading the image with
    // radix > 4 or at the top, below); columns: vectors.
    scan_up[0][0] = scan("integral/scan_up.frag", 0, 0, false);
    scan_down[0][0] = scan("integral/scan_down.frag", 0, 0, false);
    scan_down_top[0][0] = scan("integral/scan_down.frag", 0, 0, true);
    if (method == IntegralMethod::Blelloch1D) {
      if (radix <= 4) scan_down[1][0] = scan("integral/scan_down.frag", 1, 0, false);
      scan_up[2][0] = scan("integral/scan_up.frag", 2, 0, false);
      scan_down[2][0] = scan("integral/scan_down.frag", 2, 0, false);
      scan_down_top[2][0] = scan("integral/scan_down.frag", 2, 0, true);
      return;
    }
    // The 2-D method reads the R8 image in its first passes.
    for (int unorm = 0; unorm < 2; ++unorm) {
      std::vector<std::string> defs;
      if (unorm) defs.push_back("SOURCE_UNORM8");
      sweep2d_up[unorm] = gl::Program(src, vs, "integral/sweep2d_up.frag", defs);
      sweep2d_down[unorm] = gl::Program(src, vs, "integral/sweep2d_down.frag", defs);
      doubling[unorm] = gl::Program(src, vs, "integral/doubling.frag", defs);
    }
    pack = gl::Program(src, vs, "integral/pack.frag");
  }

  // The 1-D method's row programs that read an image of kind `source`.
  void need_image(int source) {
    if (image_programs[source]) return;
    scan_up[0][source] = scan("integral/scan_up.frag", 0, source, false);
    if (radix > 4) scan_down[1][source] = scan("integral/scan_down.frag", 1, source, false);
    scan_down_top[1][source] = scan("integral/scan_down.frag", 1, source, true);
    image_programs[source] = true;
  }
};

// Radix-r Blelloch exclusive scan along one axis of a fixed-size source, every
// row (or column) in parallel. up[m] is level m + 1 of the up-sweep (len_m / r
// entries, rounded up, until at most r are left), down[m] is the prescan D_m
// (one texel longer along the axis than level m).
//   With radix <= 4 the up-sweep levels also hold each group's own prefixes
// (RGBA32UI, scan_up.frag), and the down-sweep below the top reads those
// instead of the level's entries.
//   Kind::Packed (the 1-D method's rows) writes D_0 four entries to a texel,
// ceil((len_0 + 1) / 4) texels along the axis; Kind::Vector (its columns)
// scans RGBA32UI texels, four columns side by side, every level RGBA32UI
// (integral.hpp).
struct IntegralStage::AxisScan {
  enum class Kind { Plain = 0, Packed = 1, Vector = 2 };
  glm::ivec2 axis{1, 0};
  Kind kind = Kind::Plain;
  int length = 0;  // len_0
  int radix = 2;
  bool reads_image = false;     // level 0 is the image (the rows)
  bool local_prefixes = false;  // radix <= 4, not Vector
  std::vector<Texture> up, down;
  std::vector<Framebuffer> up_targets, down_targets;

  AxisScan(glm::ivec2 axis_, int length_, int across, int radix_, bool image, const std::string& label,
           Kind kind_ = Kind::Plain)
      : axis(axis_),
        kind(kind_),
        length(length_),
        radix(radix_),
        reads_image(image),
        local_prefixes(radix_ <= 4 && kind_ != Kind::Vector) {
    GLSURF_EXPECTS(kind != Kind::Packed || axis == glm::ivec2(1, 0), "packed scans run along the rows");
    const Format plain = kind == Kind::Vector ? Format::RGBA32UI : Format::R32UI;
    std::vector<int> lengths{length};  // len_0 .. len_M, len_M <= radix
    while (lengths.back() > radix) lengths.push_back(divide_up(lengths.back(), radix));
    const int levels = static_cast<int>(lengths.size()) - 1;  // M
    up.reserve(levels);
    down.reserve(levels + 1);
    for (int m = 1; m <= levels; ++m) {
      const glm::ivec2 s = oriented(axis, lengths[m], across);
      up.emplace_back(s.x, s.y, local_prefixes ? Format::RGBA32UI : plain, label + "_up" + std::to_string(m));
    }
    for (int m = 0; m <= levels; ++m) {
      const bool packed = m == 0 && kind == Kind::Packed;
      const glm::ivec2 s = oriented(axis, packed ? divide_up(lengths[m] + 1, 4) : lengths[m] + 1, across);
      down.emplace_back(s.x, s.y, packed ? Format::RGBA32UI : plain, label + "_down" + std::to_string(m));
    }
    for (const Texture& t : up) up_targets.emplace_back(std::vector<const Texture*>{&t}, t.label());
    for (const Texture& t : down) down_targets.emplace_back(std::vector<const Texture*>{&t}, t.label());
  }

  int passes() const { return static_cast<int>(up.size() + down.size()); }

  // `image`: which image `source` is (1 R8, 2 packed RGBA8) when the scan
  // reads the image (the rows); ignored otherwise.
  const Texture& run(gl::PassRunner& runner, const Programs& p, const Texture& source, int image = 1) const {
    const int levels = static_cast<int>(up.size());
    const int k = static_cast<int>(kind);
    const Texture* level = &source;
    for (int m = 1; m <= levels; ++m) {
      const int from = m == 1 && reads_image ? image : 0;
      const gl::Program& program = p.scan_up[kind == Kind::Vector ? 2 : 0][from];
      if (from == 2 && radix == 4) {  // a group is a texel of the packed image (scan_up.frag)
        runner.run("integral_scan_up", program, up_targets[m - 1], {{"u_source", *level}}, {});
      } else {
        runner.run("integral_scan_up", program, up_targets[m - 1], {{"u_source", *level}},
                   {{"u_axis", axis}});
      }
      level = &up[m - 1];
    }
    for (int m = levels; m >= 0; --m) {
      const Texture& u = m == 0 ? source : up[m - 1];
      const int from = m == 0 && reads_image ? image : 0;
      // Packed differs from Plain only in the final level.
      const int variant = m == 0 || kind == Kind::Vector ? k : 0;
      if (m == levels) {
        if (variant == 1) {
          runner.run("integral_scan_down", p.scan_down_top[1][from], down_targets[m], {{"u_source", u}},
                     {{"u_axis", axis}, {"u_length", length}});
        } else {
          runner.run("integral_scan_down", p.scan_down_top[variant][from], down_targets[m], {{"u_source", u}},
                     {{"u_axis", axis}});
        }
      } else if (local_prefixes) {
        if (variant == 1 && radix == 4) {  // groups are texels: no positions to work out
          runner.run("integral_scan_down", p.scan_down[1][0], down_targets[m],
                     {{"u_partial", down[m + 1]}, {"u_local", up[m]}}, {});
        } else if (variant == 1) {
          runner.run("integral_scan_down", p.scan_down[1][0], down_targets[m],
                     {{"u_partial", down[m + 1]}, {"u_local", up[m]}},
                     {{"u_axis", axis}, {"u_length", length}});
        } else {
          runner.run("integral_scan_down", p.scan_down[0][0], down_targets[m],
                     {{"u_partial", down[m + 1]}, {"u_local", up[m]}}, {{"u_axis", axis}});
        }
      } else if (variant == 1) {
        runner.run("integral_scan_down", p.scan_down[1][from], down_targets[m],
                   {{"u_partial", down[m + 1]}, {"u_source", u}}, {{"u_axis", axis}, {"u_length", length}});
      } else {
        runner.run("integral_scan_down", p.scan_down[variant][from], down_targets[m],
                   {{"u_partial", down[m + 1]}, {"u_source", u}}, {{"u_axis", axis}});
      }
    }
    return down[0];
  }
};

// Level k >= 1 of the 2-D pyramid and what the down-sweep needs from it.
struct IntegralStage::Level {
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

IntegralStage::IntegralStage(const gl::ShaderSource& shaders, IntegralConfig config) : config_(config) {
  GLSURF_EXPECTS(config.top_pixels >= 0, "top_pixels must be >= 0");
  GLSURF_EXPECTS(config.scan_radix >= 2 && config.scan_radix <= 64, "scan_radix must be 2 .. 64");
  programs_ = std::make_unique<Programs>(shaders, config.method, config.scan_radix);
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
  std::vector<Level> levels;
  gl::PingPong top;
  int top_steps = 0;
  Texture packed;
  Framebuffer packed_target;
  std::unique_ptr<AxisScan> rows, columns;
  if (config_.method == IntegralMethod::Blelloch1D) {
    const int radix = config_.scan_radix;
    rows = std::make_unique<AxisScan>(glm::ivec2(1, 0), width, height, radix, true, "integral_rows",
                                      AxisScan::Kind::Packed);
    columns = std::make_unique<AxisScan>(glm::ivec2(0, 1), height, packed_width(width), radix, false,
                                         "integral", AxisScan::Kind::Vector);
  } else {
    glm::ivec2 size(width, height);  // of U_k
    while (static_cast<long long>(size.x) * size.y > config_.top_pixels && size != glm::ivec2(1)) {
      const glm::ivec2 finer = size;
      size = glm::ivec2(half_up(size.x), half_up(size.y));
      levels.emplace_back(static_cast<int>(levels.size()) + 1, size, finer, config_.scan_radix);
    }
    top_steps = 1;  // at least one step, which also applies the (1, 1) shift
    while ((1 << top_steps) < std::max(size.x, size.y)) ++top_steps;
    top = gl::PingPong(size.x + 1, size.y + 1, Format::R32UI,
                       levels.empty() ? "integral_unpacked" : "integral_D" + std::to_string(levels.size()));
    packed = Texture(packed_width(width), height + 1, Format::RGBA32UI, "integral");
    packed_target = Framebuffer({&packed}, "integral");
  }
  width_ = width;
  height_ = height;
  linear_ = gl::Texture();
  linear_generation_ = 0;
  generation_ = next_generation();
  ran_ = false;
  levels_ = std::move(levels);
  top_ = std::move(top);
  top_steps_ = top_steps;
  packed_ = std::move(packed);
  packed_target_ = std::move(packed_target);
  rows_ = std::move(rows);
  columns_ = std::move(columns);
}

int IntegralStage::passes_per_run() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  if (config_.method == IntegralMethod::Blelloch1D) return rows_->passes() + columns_->passes();
  int n = top_steps_ + 1;  // and the packing
  for (const Level& l : levels_) n += 2 + l.row_prefix.passes() + l.col_prefix.passes();
  return n;
}

const Texture& IntegralStage::result() const {
  GLSURF_EXPECTS(width_ > 0, "configure() first");
  // Looked up here, not kept as a pointer: top_ lives inside the stage, so a
  // pointer to it would dangle once the stage (or its GpuDetector) is moved.
  if (columns_) return columns_->down[0];
  return packed_;
}

std::vector<std::uint32_t> IntegralStage::download_sums() const {
  const Texture& packed = result();
  const std::vector<std::uint32_t> texels = packed.download_u32();
  const size_t stride = 4 * static_cast<size_t>(packed.width()), w = static_cast<size_t>(width_) + 1;
  std::vector<std::uint32_t> sums;
  sums.reserve(w * (static_cast<size_t>(height_) + 1));
  for (size_t y = 0; y <= static_cast<size_t>(height_); ++y) {
    sums.insert(sums.end(), texels.begin() + static_cast<std::ptrdiff_t>(y * stride),
                texels.begin() + static_cast<std::ptrdiff_t>(y * stride + w));
  }
  return sums;
}

const Texture& IntegralStage::run(gl::PassRunner& runner, const Texture& image) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  const bool packed = image.format() == Format::RGBA8;
  GLSURF_EXPECTS(packed
                     ? config_.method == IntegralMethod::Blelloch1D &&
                           image.width() == packed_image_width(width_) && image.height() == height_
                     : image.width() == width_ && image.height() == height_ && image.format() == Format::R8,
                 "input must be the configured size and R8 (or, for the 1-D method, packed RGBA8)");
  if (config_.method == IntegralMethod::Blelloch1D) {
    run_1d(runner, image);
  } else {
    run_2d(runner, image);
  }
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

void IntegralStage::run_1d(gl::PassRunner& runner, const Texture& image) {
  const int source = image.format() == Format::RGBA8 ? 2 : 1;
  programs_->need_image(source);
  const Texture& row_sums = rows_->run(runner, *programs_, image, source);
  columns_->run(runner, *programs_, row_sums);
}

void IntegralStage::run_2d(gl::PassRunner& runner, const Texture& image) {
  const Programs& p = *programs_;
  const int levels = static_cast<int>(levels_.size());
  auto block = [&](int k) -> const Texture& { return k == 0 ? image : levels_[k - 1].block; };

  // Up-sweep: U_k, H_k, V_k for k = 1..K (eqs. 7-9).
  for (int k = 1; k <= levels; ++k) {
    runner.run("integral_sweep2d_up", p.sweep2d_up[k == 1], levels_[k - 1].up_target,
               {{"u_source", block(k - 1)}});
  }
  // Row prefix X_k of H_k and column prefix Y_k of V_k (eqs. 10-11).
  for (const Level& l : levels_) {
    l.row_prefix.run(runner, p, l.top_row);
    l.col_prefix.run(runner, p, l.left_column);
  }
  // Top of the pyramid: D_K by ping-pong doubling (eq. 13), ending in texture 0.
  top_.reset(top_steps_);
  for (int j = 0; j < top_steps_; ++j) {
    const bool first = j == 0;
    const Texture& source = first ? block(levels) : top_.front();
    runner.run("integral_doubling", p.doubling[first && levels == 0], top_.back(), {{"u_source", source}},
               {{"u_step", 1 << j}, {"u_shift", first ? glm::ivec2(1) : glm::ivec2(0)}});
    top_.swap();
  }
  // Down-sweep: D_{k-1} from D_k, X_k, Y_k and U_{k-1} (eq. 12).
  for (int k = levels; k >= 1; --k) {
    const Level& l = levels_[k - 1];
    const Texture& coarse = k == levels ? top_.front() : levels_[k].below;
    runner.run("integral_sweep2d_down", p.sweep2d_down[k == 1], l.below_target,
               {{"u_partial", coarse},
                {"u_row_prefix", l.row_prefix.down[0]},
                {"u_col_prefix", l.col_prefix.down[0]},
                {"u_source", block(k - 1)}});
  }
  // Four columns to a texel, as the 1-D method's result.
  runner.run("integral_pack", p.pack, packed_target_,
             {{"u_source", levels_.empty() ? top_.texture(0) : levels_.front().below}});
}

}  // namespace glsurf
