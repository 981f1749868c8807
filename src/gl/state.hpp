// GL state that glsurf's passes and transfers rely on, set for the length of
// one call and put back after it.
//
// A host that draws into glsurf's context itself (a viewer built on
// gl::Context::window) may leave blending, a scissor box, face culling, a
// colour mask, wireframe polygons, a bound pixel buffer or a pixel-store row
// length behind. Any of them would change what a pass writes or what an
// upload reads, silently. Each guard records the host's values, sets what
// glsurf assumes, and restores the host's values when it goes out of scope.
#pragma once

namespace glsurf::gl {

// For draws, clears and blits: blending, depth test and depth writes and the
// colour mask as the caller asks; scissor, stencil, culling, rasteriser
// discard, program point size, polygon offset and logic ops off; polygons
// filled, points one pixel, depth range [0, 1]. The caller sets the blend function and
// equation, or the depth function, when it enables blending or the depth
// test; the guard puts the host's back.
class DrawStateGuard {
 public:
  struct Wanted {
    bool blend = false;
    bool depth_test = false;
    bool depth_write = false;
    bool color_write = true;
  };
  static constexpr int kCapCount = 9;  // the switches it guards (glEnable / glDisable)
  explicit DrawStateGuard(const Wanted& wanted);
  ~DrawStateGuard();
  DrawStateGuard(const DrawStateGuard&) = delete;
  DrawStateGuard& operator=(const DrawStateGuard&) = delete;

 private:
  unsigned char enabled_[kCapCount];  // kGuardedCaps in state.cpp
  unsigned char color_mask_[4];
  unsigned char depth_mask_;
  int polygon_mode_[2];
  bool blend_, depth_test_;
  int blend_function_[6];  // source and destination RGB and alpha, equations RGB and alpha
  int depth_function_;
  float point_size_;
  double depth_range_[2];
};

// For uploads and readbacks: tightly packed rows (alignment 1, no row
// length, no skips, no byte swapping, most significant bit first) and
// `buffer` bound as the pixel pack (pack = true) or unpack buffer; 0 for
// client memory. Readbacks are not clamped (GL_CLAMP_READ_COLOR fixed only).
class PixelStoreGuard {
 public:
  PixelStoreGuard(bool pack, unsigned buffer);
  ~PixelStoreGuard();
  PixelStoreGuard(const PixelStoreGuard&) = delete;
  PixelStoreGuard& operator=(const PixelStoreGuard&) = delete;

 private:
  bool pack_;
  int values_[9];  // kPack or kUnpack in state.cpp: eight parameters, then the buffer binding
  int clamp_read_ = 0;
};

}  // namespace glsurf::gl
