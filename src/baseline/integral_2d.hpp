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
#include <memory>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/program.hpp"
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
  ScanPrograms scans_;
  gl::Program sweep2d_up_[2], sweep2d_down_[2], doubling_[2], pack_;  // [1]: reads the R8 image
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
