// Baseline integral image: Terriberry et al. 2008's "novel 2-D
// parallelization" (section III-A). An up-sweep builds three pyramids per
// level with MRT: U (2x2 block sums), H (top row pairs), V (left column
// pairs) [eqs. 7-9]. The row prefix X of H and the column prefix Y of V are
// computed on every level with a 1-D Blelloch scan [eqs. 3-6, 10-11]
// (surf/scan.hpp). A down-sweep then rebuilds the 2-D prefix level by level
// from D, X, Y and U [eq. 12]. Once a level has at most `top_pixels` texels,
// the top of the pyramid is summed by the ping-pong doubling of eq. 13, and
// the result packed four columns to a texel (one more pass).
//
// Shaders: integral/sweep2d_up.frag, sweep2d_down.frag, doubling.frag,
// pack.frag and the scans'; timer keys integral_sweep2d_up,
// integral_sweep2d_down, integral_doubling, integral_pack, integral_scan_up,
// integral_scan_down.
//
// The result is the texture IntegralStage (the production 1-D method) makes,
// the same exact sums in the same layout (surf/integral.hpp). Kept as a test
// oracle (tests/test_gpu_integral.cpp) and for `glsurf bench integral`; not
// part of the glsurf library.
//
// Parameters
//   | field       | default | meaning                                              |
//   |-------------|---------|------------------------------------------------------|
//   | top_pixels  | 8192    | T0: switch to eq. 13 once w_k * h_k <= T0 (paper's   |
//   |             |         | optimum on a GeForce 7; 0 recurses down to 1 x 1)    |
//   | scan_radix  | 4       | radix of the 1-D scans, 2 .. 64                      |
#pragma once

#include <cstdint>
#include <glm/vec2.hpp>
#include <memory>
#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/scan.hpp"

namespace glsurf::baseline {

struct Integral2DConfig {
  int top_pixels = 8192;
  int scan_radix = 4;
};

class Integral2DStage {
 public:
  explicit Integral2DStage(const gl::ShaderSource& shaders, Integral2DConfig config = {});
  Integral2DStage(Integral2DStage&&) noexcept;
  Integral2DStage& operator=(Integral2DStage&&) noexcept;
  ~Integral2DStage();

  // Throws glsurf::Error with integral_size_problem's answer for an image
  // too large; a failure leaves the stage as it was.
  void configure(int width, int height);
  // `image`: the R8 grey image, width x height as configured. Returns
  // result().
  const gl::Texture& run(gl::PassRunner& runner, const gl::Texture& image);
  const gl::Texture& result() const;
  std::vector<std::uint32_t> download_sums() const;  // download_integral_sums
  int width() const { return width_; }
  int height() const { return height_; }
  const Integral2DConfig& config() const { return config_; }
  int passes_per_run() const;  // number of draws run() issues for this size

  struct Level;

 private:
  Integral2DConfig config_;
  // SOURCE_UNORM8 for the passes that read the R8 image.
  static std::vector<std::string> source_defines(bool reads_image);
  // U_k, H_k, V_k from U_{k-1}: block sums, their top rows and left columns (eqs. 7-9).
  class Sweep2DUpPass : public gl::Pass {
   public:
    Sweep2DUpPass(const gl::ShaderSource& shaders, bool reads_image)
        : Pass(shaders, "integral_sweep2d_up", "integral/sweep2d_up.frag", source_defines(reads_image)) {}
    // U_{k-1} (the image for k = 1).
    Sweep2DUpPass& finer_blocks(const gl::Texture& blocks) { return input("u_source", blocks), *this; }
  };
  // D_{k-1}, the 2-D prefix one level finer, from D_k, X_k, Y_k and U_{k-1} (eq. 12).
  class Sweep2DDownPass : public gl::Pass {
   public:
    Sweep2DDownPass(const gl::ShaderSource& shaders, bool reads_image)
        : Pass(shaders, "integral_sweep2d_down", "integral/sweep2d_down.frag", source_defines(reads_image)) {}
    // D_k.
    Sweep2DDownPass& coarse_prefix(const gl::Texture& prefix) { return input("u_partial", prefix), *this; }
    // X_k, the row prefix of H_k, and Y_k, the column prefix of V_k.
    Sweep2DDownPass& prefixes(const gl::Texture& row_prefix, const gl::Texture& col_prefix) {
      input("u_row_prefix", row_prefix);
      return input("u_col_prefix", col_prefix), *this;
    }
    // U_{k-1} (the image for k = 1).
    Sweep2DDownPass& finer_blocks(const gl::Texture& blocks) { return input("u_source", blocks), *this; }
  };
  // One ping-pong doubling step of the top's 2-D prefix sum (eq. 13).
  class DoublingPass : public gl::Pass {
   public:
    DoublingPass(const gl::ShaderSource& shaders, bool reads_image)
        : Pass(shaders, "integral_doubling", "integral/doubling.frag", source_defines(reads_image)) {}
    // T_j (U_K at step 0).
    DoublingPass& sums(const gl::Texture& sums) { return input("u_source", sums), *this; }
    // Step j: distance 2^j; step 0 also shifts by (1, 1), to the exclusive form.
    DoublingPass& step(int j) {
      uniform("u_step", 1 << j);
      return uniform("u_shift", j == 0 ? glm::ivec2(1) : glm::ivec2(0)), *this;
    }
  };
  // The integral image packed four columns to a texel, as IntegralStage's result.
  class PackPass : public gl::Pass {
   public:
    explicit PackPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "integral_pack", "integral/pack.frag") {}
    PackPass& unpacked(const gl::Texture& integral) { return input("u_source", integral), *this; }
  };

  ScanPrograms scans_;
  // [1]: reads the R8 image.
  Sweep2DUpPass sweep2d_up_[2];
  Sweep2DDownPass sweep2d_down_[2];
  DoublingPass doubling_[2];
  PackPass pack_;
  int width_ = 0, height_ = 0;
  // levels_[k - 1] holds U_k, H_k, V_k, the scans giving X_k and Y_k, and
  // D_{k-1}; the top D_K comes from the doubling ping-pong.
  std::vector<Level> levels_;
  gl::PingPong top_;
  int top_steps_ = 0;
  gl::Texture packed_;  // the result (integral/pack.frag)
  gl::Framebuffer packed_target_;
};

}  // namespace glsurf::baseline
