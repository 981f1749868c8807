#include "gl/state.hpp"

#include "gl/gl.hpp"

namespace glsurf::gl {

namespace {

// The first two as the pass asks, the rest off.
constexpr GLenum kGuardedCaps[DrawStateGuard::kCapCount] = {
    GL_BLEND,         GL_DEPTH_TEST,         GL_SCISSOR_TEST,       GL_STENCIL_TEST,
    GL_CULL_FACE,     GL_RASTERIZER_DISCARD, GL_PROGRAM_POINT_SIZE, GL_POLYGON_OFFSET_FILL,
    GL_COLOR_LOGIC_OP};

// Pixel-store parameters (the defaults are 4 for the alignment, 0 or false
// for the rest; glsurf wants 1 and 0), then the buffer binding's query.
constexpr GLenum kPack[9] = {GL_PACK_ALIGNMENT,   GL_PACK_ROW_LENGTH,   GL_PACK_SKIP_ROWS,
                             GL_PACK_SKIP_PIXELS, GL_PACK_IMAGE_HEIGHT, GL_PACK_SKIP_IMAGES,
                             GL_PACK_SWAP_BYTES,  GL_PACK_LSB_FIRST,    GL_PIXEL_PACK_BUFFER_BINDING};
constexpr GLenum kUnpack[9] = {GL_UNPACK_ALIGNMENT,   GL_UNPACK_ROW_LENGTH,   GL_UNPACK_SKIP_ROWS,
                               GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_IMAGES,
                               GL_UNPACK_SWAP_BYTES,  GL_UNPACK_LSB_FIRST,    GL_PIXEL_UNPACK_BUFFER_BINDING};
constexpr int kStoreCount = 8;  // the parameters before the binding

void set_cap(GLenum cap, bool on) {
  if (on)
    glEnable(cap);
  else
    glDisable(cap);
}

constexpr GLenum kBlendFunction[6] = {GL_BLEND_SRC_RGB,   GL_BLEND_DST_RGB,      GL_BLEND_SRC_ALPHA,
                                      GL_BLEND_DST_ALPHA, GL_BLEND_EQUATION_RGB, GL_BLEND_EQUATION_ALPHA};

}  // namespace

DrawStateGuard::DrawStateGuard(const Wanted& wanted)
    : blend_(wanted.blend), depth_test_(wanted.depth_test), blend_function_{}, depth_function_(GL_LESS) {
  if (blend_)
    for (int i = 0; i < 6; ++i) glGetIntegerv(kBlendFunction[i], &blend_function_[i]);
  if (depth_test_) glGetIntegerv(GL_DEPTH_FUNC, &depth_function_);
  for (int i = 0; i < kCapCount; ++i) enabled_[i] = glIsEnabled(kGuardedCaps[i]);
  glGetBooleanv(GL_COLOR_WRITEMASK, color_mask_);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
  glGetIntegerv(GL_POLYGON_MODE, polygon_mode_);
  glGetFloatv(GL_POINT_SIZE, &point_size_);
  glGetDoublev(GL_DEPTH_RANGE, depth_range_);
  for (int i = 0; i < kCapCount; ++i)
    set_cap(kGuardedCaps[i], i == 0 ? wanted.blend : i == 1 && wanted.depth_test);
  const GLboolean c = wanted.color_write ? GL_TRUE : GL_FALSE;
  glColorMask(c, c, c, c);
  glDepthMask(wanted.depth_write ? GL_TRUE : GL_FALSE);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  glPointSize(1.0f);       // scattered points cover one texel
  glDepthRange(0.0, 1.0);  // depth-culled passes compare the rasteriser's 0.5 with marks of 0
}

DrawStateGuard::~DrawStateGuard() {
  if (blend_) {
    const auto e = [this](int i) { return static_cast<GLenum>(blend_function_[i]); };
    glBlendFuncSeparate(e(0), e(1), e(2), e(3));
    glBlendEquationSeparate(e(4), e(5));
  }
  if (depth_test_) glDepthFunc(static_cast<GLenum>(depth_function_));
  for (int i = 0; i < kCapCount; ++i) set_cap(kGuardedCaps[i], enabled_[i] != GL_FALSE);
  glPointSize(point_size_);
  glDepthRange(depth_range_[0], depth_range_[1]);
  glColorMask(color_mask_[0], color_mask_[1], color_mask_[2], color_mask_[3]);
  glDepthMask(depth_mask_);
  // Core profiles keep one mode for both faces; GL_POLYGON_MODE reports it twice.
  glPolygonMode(GL_FRONT_AND_BACK, static_cast<GLenum>(polygon_mode_[0]));
}

PixelStoreGuard::PixelStoreGuard(bool pack, unsigned buffer) : pack_(pack) {
  const GLenum* names = pack ? kPack : kUnpack;
  for (int i = 0; i <= kStoreCount; ++i) glGetIntegerv(names[i], &values_[i]);
  for (int i = 0; i < kStoreCount; ++i) glPixelStorei(names[i], i == 0 ? 1 : 0);
  glBindBuffer(pack ? GL_PIXEL_PACK_BUFFER : GL_PIXEL_UNPACK_BUFFER, buffer);
  if (pack) {  // readbacks of float targets, unclamped
    glGetIntegerv(GL_CLAMP_READ_COLOR, &clamp_read_);
    glClampColor(GL_CLAMP_READ_COLOR, GL_FIXED_ONLY);
  }
}

PixelStoreGuard::~PixelStoreGuard() {
  const GLenum* names = pack_ ? kPack : kUnpack;
  for (int i = 0; i < kStoreCount; ++i) glPixelStorei(names[i], values_[i]);
  glBindBuffer(pack_ ? GL_PIXEL_PACK_BUFFER : GL_PIXEL_UNPACK_BUFFER,
               static_cast<GLuint>(values_[kStoreCount]));
  if (pack_) glClampColor(GL_CLAMP_READ_COLOR, static_cast<GLenum>(clamp_read_));
}

}  // namespace glsurf::gl
