// A move-only 2-D texture with one mip level and nearest sampling: every pass
// in glsurf addresses texels exactly (texelFetch), so filtering is never wanted
// and integer textures stay complete. Or a buffer texture (Texture::buffer), a
// linear copy of a 2-D one that passes read as a samplerBuffer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glsurf::gl {

enum class Format {
  R8,      // unsigned normalised 8-bit: the uploaded grey image
  R32UI,   // 32-bit unsigned integer: the integral image (wrap-around sums)
  RG32UI,  // pairs of counts: the HistoPyramid of two classes of keypoints
  RGBA32UI,
  R32F,
  RG32F,
  RGBA32F,
  Depth32F,  // depth attachment (early-Z culling); not sampled
  RGBA8,     // colour pictures: the viewer's frame
  R8UI,      // 8-bit unsigned integer: bit masks (the Laplacian signs of a group of layers)
};

const char* to_string(Format format);
int channels(Format format);

// Whether the driver can make a width x height texture of `format`: within
// max_texture_size() and accepted by a proxy texture (GL_PROXY_TEXTURE_2D),
// which is where a driver refuses one too large in bytes (Mesa's
// MaxTextureMbytes: llvmpipe refuses an RGBA32F texture of 1.7 GB).
bool texture_fits(int width, int height, Format format);

class Texture {
 public:
  Texture() = default;
  Texture(int width, int height, Format format, std::string label);
  Texture(Texture&& other) noexcept;
  Texture& operator=(Texture&& other) noexcept;
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;
  ~Texture();

  // A buffer texture (GL_TEXTURE_BUFFER, a samplerBuffer in GLSL) of `texels`
  // texels of RGBA32F, RGBA32UI or R32UI: one linear array, read with
  // texelFetch(sampler, index). On llvmpipe such a fetch costs about two
  // thirds of a 2-D one (docs/notes/llvmpipe.md). Not a render
  // target; filled by copy_rows. width() is `texels`, height() 1.
  static Texture buffer(int texels, Format format, std::string label);
  // A buffer texture of `texels` texels of `format` over the first bytes of
  // `storage`'s buffer object (a buffer texture of at least `texels` texels
  // of as many channels; the view is of the whole buffer, as GL 3.3 has no
  // ranges, so `texels` is what width() says and copy_rows checks): copies that stages need at different
  // times share one allocation, each stage filling it before it reads it. The view does not free the buffer;
  // `storage` must outlive it.
  static Texture buffer_view(const Texture& storage, int texels, Format format, std::string label);
  // Buffer textures only: the values of rows first_row .. first_row + rows -
  // 1 of the 2-D texture `source`, row by row from texel `first_texel` of
  // this texture, copied on the GPU. `source` has this texture's format, or
  // is RGBA32UI into R32UI (four texels per source texel).
  void copy_rows(const Texture& source, int first_row, int rows, long long first_texel = 0);
  bool is_buffer() const { return buffer_ != 0; }
  unsigned target() const;  // GL_TEXTURE_2D or GL_TEXTURE_BUFFER

  unsigned id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }
  Format format() const { return format_; }
  const std::string& label() const { return label_; }
  explicit operator bool() const { return id_ != 0; }

  // Whole-texture transfers; sizes must match width*height*channels.
  void upload(const std::uint8_t* data);   // R8 only
  void upload(const std::uint32_t* data);  // R32UI / RGBA32UI
  void upload(const float* data);          // float formats
  std::vector<std::uint32_t> download_u32() const;
  std::vector<float> download_f32() const;
  std::vector<std::uint8_t> download_u8() const;  // R8 and RGBA8

 private:
  void release();
  unsigned id_ = 0;
  unsigned buffer_ = 0;      // the buffer object of a buffer texture
  bool owns_buffer_ = true;  // false for a buffer_view
  int width_ = 0, height_ = 0;
  Format format_ = Format::R8;
  std::string label_;
};

}  // namespace glsurf::gl
