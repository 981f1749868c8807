// GPU integral image (summed-area table), exact in 32-bit unsigned integers.
//
// Output: the (W + 1) x (H + 1) values, for a W x H image,
//     S(x, y) = sum of I(i, j) over i < x, j < y   (mod 2^32),
// of cpu::IntegralImage (see src/cpu/integral.hpp for why wrap-around keeps
// box sums exact), packed four columns to a texel: an RGBA32UI texture of
// ceil((W + 1) / 4) x (H + 1) texels, texel (j, y) holding S(4j .. 4j + 3,
// y), columns past W repeating S(W, y). Texel row y holds image row y (y
// down). The passes that read it use common/integral_fetch.glsl; its buffer
// copy (linear_copy) is the same values row by row, 4 ceil((W + 1) / 4) to a
// row. Four to a texel because the 1-D method's column scans then run four
// columns to a fragment: on llvmpipe a quarter of the fragments and
// look-ups for the same values (docs/notes/integral.md).
//
// Method (Terriberry et al. 2008, section III-A, applied along one axis at a
// time): a Blelloch scan along every row, whose last level writes four
// entries to a texel, then along every column of the result, four columns to
// a texel (surf/scan.hpp). On llvmpipe it is as fast as the paper's 2-D
// parallelization or faster at every size from 640 x 480 to 4096 x 4096,
// since its scans read each group's prefixes in one look-up (below;
// docs/notes/integral.md). The 2-D method is kept as a baseline,
// baseline/integral_2d.hpp, which gives the same texture.
//
// The scans have radix `scan_radix` (r): each up-sweep level sums r entries,
// until at most r are left; each down-sweep level adds up to r - 1 of them to
// its group's prefix (the top level, one group, up to r). A scan of n > 1
// entries takes 2 ceil(log_r n) - 1 draws, one for n = 1. Radix 2 is
// Blelloch's (and the paper's) scan; a larger one trades draws for look-ups
// per texel. With r <= 4 the up-sweep also keeps each group's own prefixes,
// so that a down-sweep texel below the top reads two texels instead of up to
// r (integral/scan_up.frag, scan_down.frag).
//
// Parameters
//   | field       | default | meaning                                              |
//   |-------------|---------|------------------------------------------------------|
//   | scan_radix  | 4       | radix of the scans, 2 .. 64                          |
//
// Usage: configure(width, height) once per image size (allocates every texture
// and framebuffer and checks them), then run() per frame with no allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <glm/vec2.hpp>
#include <memory>
#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/keypoint.hpp"
#include "surf/scan.hpp"

namespace glsurf {

// The integral image's gl::texture_size_problem on the current context ("" if
// it fits): W + 2 x H + 2 texels, since the descriptors' copy of it as quads
// (surf/descriptor.hpp) has a border.
std::string integral_size_problem(int width, int height);

// Texels across the result of a width-wide image: ceil((width + 1) / 4).
int packed_width(int width);
// The stage reads its input fastest packed four pixels to an RGBA8 texel, ceil(width / 4) texels to a row,
// the last padded with zeros: packed_image_width() is that width, upload_packed_image() fills such a texture
// from the image (`scratch` holds padded rows when the width is not a multiple of 4).
int packed_image_width(int width);
void upload_packed_image(gl::Texture& texture, const GrayImage& image, std::vector<std::uint8_t>& scratch);
// Values in the result's buffer copy (IntegralStage::linear_copy): rows of
// 4 packed_width(width), height + 1 of them.
long long integral_linear_texels(int width, int height);
// A result texture (packed, as above) of a width x height image read back as
// (W + 1) x (H + 1) sums, row by row (the layout of cpu::IntegralImage),
// without the packing's padding. Waits for the GPU.
std::vector<std::uint32_t> download_integral_sums(const gl::Texture& packed, int width, int height);

// Rows of the bands in which the Hessian's cross strip (of `rows` sample
// rows) and the descriptors' quads (`rows` = H + 2) are drawn, each band into
// a 2-D texture of band height and from there copied into a buffer texture
// (the strip's band into the same buffer rows every time, the quads' into
// their place in the whole): an eighth of the rows, whole 64-row tiles of
// llvmpipe's rasterizer, at least 256, at most all; on llvmpipe the 2-D
// textures of the whole strip and quads took 32 bytes a pixel of host memory
// (docs/notes/memory.md).
inline int scratch_band_rows(int rows) {
  const int eighth = ((rows + 7) / 8 + 63) / 64 * 64;
  return rows < 256 ? rows : std::min(rows, std::max(256, eighth));
}

struct IntegralConfig {
  int scan_radix = 4;
};

class IntegralStage {
 public:
  explicit IntegralStage(const gl::ShaderSource& shaders, IntegralConfig config = {});
  IntegralStage(IntegralStage&&) noexcept;
  IntegralStage& operator=(IntegralStage&&) noexcept;
  ~IntegralStage();

  void configure(int width, int height);

  // `image`: the R8 grey image, width x height as configured, or the same
  // packed (packed_image_width(), upload_packed_image()),
  // which its first pass reads in one look-up per four pixels. Returns the
  // integral texture: the same texture as result(), for every run, until the
  // next configure(). configure() throws glsurf::Error with
  // integral_size_problem's answer for an image too large.
  const gl::Texture& run(gl::PassRunner& runner, const gl::Texture& image);

  const gl::Texture& result() const;
  // The result read back (download_integral_sums). Waits for the GPU.
  std::vector<std::uint32_t> download_sums() const;
  // W + 1, H + 1: the integral image's size in values (u_integral_size of
  // common/integral_fetch.glsl).
  glm::ivec2 size() const { return glm::ivec2(width_ + 1, height_ + 1); }
  // Which result() this is: a number new at every run() and configure(),
  // unique among all IntegralStages of the process (0: none yet). A stage
  // that keeps something made from the result (the descriptors' quads)
  // compares it to tell whether the result changed.
  std::uint64_t generation() const { return generation_; }
  // A buffer-texture copy of result() (common/linear_fetch.glsl) for the
  // passes that read it by linear look-ups (the Hessian's strips, the
  // descriptors' quads): copied at the first call after each run(), then
  // shared; nullptr when its texels exceed `limit` (gl::max_buffer_texels).
  const gl::Texture* linear_copy(gl::PassRunner& runner, int limit);
  int width() const { return width_; }
  int height() const { return height_; }
  const IntegralConfig& config() const { return config_; }
  int passes_per_run() const;  // number of draws run() issues for this size

 private:
  IntegralConfig config_;
  std::unique_ptr<ScanPrograms> programs_;
  int width_ = 0, height_ = 0;
  std::uint64_t generation_ = 0;
  bool ran_ = false;                     // run() since the last configure()
  gl::Texture linear_;                   // linear_copy(): allocated at its first call after configure()
  std::uint64_t linear_generation_ = 0;  // the result linear_ holds (0: none)
  // Rows, then columns.
  std::unique_ptr<AxisScan> rows_, columns_;
};

}  // namespace glsurf
