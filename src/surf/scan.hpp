// Radix-r Blelloch exclusive scans along one axis of a texture, every row (or
// column) in parallel: the building block of the integral image
// (surf/integral.hpp, which documents the radix and the draw counts; the
// 2-D baseline, baseline/integral_2d.hpp, scans its pyramids' half-sums with
// it too). Shaders: integral/scan_up.frag, integral/scan_down.frag; timer
// keys integral_scan_up, integral_scan_down.
#pragma once

#include <glm/vec2.hpp>
#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"

namespace glsurf {

// The scans' passes, each compiled once (each costs memory on a software
// renderer), as [kind][source]: kind as AxisScan::Kind; source 0 for an
// up-sweep level (R32UI, or RGBA32UI), 1 for the R8 image (SOURCE_UNORM8), 2
// for the packed RGBA8 image (SOURCE_PACKED8). The constructor compiles those
// of Kind::Plain levels; need() those of another kind, need_image() those
// that read an image of a kind, at the first run() with it.
class ScanPrograms {
 public:
  ScanPrograms(const gl::ShaderSource& shaders, int radix);
  void need(int kind);
  void need_image(int source);

 private:
  friend struct AxisScan;

  // RADIX, the source's define (SOURCE_UNORM8, SOURCE_PACKED8), the kind's
  // (PACKED, VECTOR) and TOP_LEVEL.
  static std::vector<std::string> defines(int radix, int kind, int source, bool top);
  // One up-sweep level: sums of `radix` entries along the axis, with each
  // group's own prefixes when radix <= 4 (Terriberry eqs. 3, 5).
  class ScanUpPass : public gl::Pass {
   public:
    ScanUpPass() = default;
    ScanUpPass(const gl::ShaderSource& shaders, int radix, int kind, int source)
        : Pass(shaders, "integral_scan_up", "integral/scan_up.frag", defines(radix, kind, source, false)) {}
    // Level m - 1 of the up-sweep (or the image).
    ScanUpPass& entries(const gl::Texture& level) { return input("u_source", level), *this; }
    ScanUpPass& axis(glm::ivec2 axis) { return uniform("u_axis", axis), *this; }
  };
  // One down-sweep level: the exclusive prefix D_m from D_{m+1} and the
  // entries of level m (Terriberry eqs. 4, 6).
  class ScanDownPass : public gl::Pass {
   public:
    ScanDownPass() = default;
    ScanDownPass(const gl::ShaderSource& shaders, int radix, int kind, int source, bool top)
        : Pass(shaders, "integral_scan_down", "integral/scan_down.frag", defines(radix, kind, source, top)) {}
    // D_{m+1} (none at the top level).
    ScanDownPass& coarser_prefix(const gl::Texture& prefix) { return input("u_partial", prefix), *this; }
    // U_m, level m of the up-sweep (or the image).
    ScanDownPass& entries(const gl::Texture& level) { return input("u_source", level), *this; }
    // With local prefixes, below the top: U_{m+1}, which holds each group's own prefixes.
    ScanDownPass& group_prefixes(const gl::Texture& level) { return input("u_local", level), *this; }
    ScanDownPass& axis(glm::ivec2 axis) { return uniform("u_axis", axis), *this; }
    // Kind::Packed: len_0, the row's length.
    ScanDownPass& packed_length(int length) { return uniform("u_length", length), *this; }
  };

  ScanUpPass up_[3][3];
  ScanDownPass down_[3][3], down_top_[3][3];
  gl::ShaderSource src_;
  int radix_;
  bool kinds_[3] = {true, false, false};
  bool image_programs_[3] = {true, false, false};
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
struct AxisScan {
  enum class Kind { Plain = 0, Packed = 1, Vector = 2 };
  glm::ivec2 axis{1, 0};
  Kind kind = Kind::Plain;
  int length = 0;  // len_0
  int radix = 2;
  bool reads_image = false;     // level 0 is the image (the rows)
  bool local_prefixes = false;  // radix <= 4, not Vector
  std::vector<gl::Texture> up, down;
  std::vector<gl::Framebuffer> up_targets, down_targets;

  AxisScan(glm::ivec2 axis, int length, int across, int radix, bool image, const std::string& label,
           Kind kind = Kind::Plain);

  int passes() const { return static_cast<int>(up.size() + down.size()); }

  // `image`: which image `source` is (1 R8, 2 packed RGBA8) when the scan
  // reads the image (the rows); ignored otherwise. `p` must have this kind's
  // passes (ScanPrograms::need) and the image's (need_image).
  const gl::Texture& run(gl::PassRunner& runner, ScanPrograms& p, const gl::Texture& source,
                         int image = 1) const;
};

}  // namespace glsurf
