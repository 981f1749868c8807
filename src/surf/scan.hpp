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
#include "gl/program.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"

namespace glsurf {

// The scans' programs, each compiled once (each costs memory on a software
// renderer), as [kind][source]: kind as AxisScan::Kind; source 0 for an
// up-sweep level (R32UI, or RGBA32UI), 1 for the R8 image (SOURCE_UNORM8), 2
// for the packed RGBA8 image (SOURCE_PACKED8). The constructor compiles those
// of Kind::Plain levels; need() those of another kind, need_image() those
// that read an image of a kind, at the first run() with it.
struct ScanPrograms {
  gl::Program up[3][3], down[3][3], down_top[3][3];
  gl::ShaderSource src;
  int radix;
  bool kinds[3] = {true, false, false};
  bool image_programs[3] = {true, false, false};

  ScanPrograms(const gl::ShaderSource& shaders, int radix);
  void need(int kind);
  void need_image(int source);
  gl::Program scan(const char* file, int kind, int source, bool top) const;
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
  // programs (ScanPrograms::need) and the image's (need_image).
  const gl::Texture& run(gl::PassRunner& runner, const ScanPrograms& p, const gl::Texture& source,
                         int image = 1) const;
};

}  // namespace glsurf
