#include "gl/texture.hpp"

#include <cstdint>
#include <utility>

#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "gl/state.hpp"

namespace glsurf::gl {

namespace {

struct FormatInfo {
  GLenum internal, format, type;
  int channels;
  bool integer;
};

FormatInfo info(Format f) {
  switch (f) {
    case Format::R8:
      return {GL_R8, GL_RED, GL_UNSIGNED_BYTE, 1, false};
    case Format::R32UI:
      return {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, 1, true};
    case Format::RG32UI:
      return {GL_RG32UI, GL_RG_INTEGER, GL_UNSIGNED_INT, 2, true};
    case Format::RGBA32UI:
      return {GL_RGBA32UI, GL_RGBA_INTEGER, GL_UNSIGNED_INT, 4, true};
    case Format::R32F:
      return {GL_R32F, GL_RED, GL_FLOAT, 1, false};
    case Format::RG32F:
      return {GL_RG32F, GL_RG, GL_FLOAT, 2, false};
    case Format::RGBA32F:
      return {GL_RGBA32F, GL_RGBA, GL_FLOAT, 4, false};
    case Format::Depth32F:
      return {GL_DEPTH_COMPONENT32F, GL_DEPTH_COMPONENT, GL_FLOAT, 1, false};
    case Format::RGBA8:
      return {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, false};
    case Format::R8UI:
      return {GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_INT, 1, true};
  }
  return {GL_R8, GL_RED, GL_UNSIGNED_BYTE, 1, false};
}

// Binds `id` to GL_TEXTURE_2D for the lifetime of the guard, then restores
// whatever was bound, so texture helpers leave no state behind.
class BindGuard {
 public:
  explicit BindGuard(GLuint id) {
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_);
    glBindTexture(GL_TEXTURE_2D, id);
  }
  ~BindGuard() { glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous_)); }
  BindGuard(const BindGuard&) = delete;
  BindGuard& operator=(const BindGuard&) = delete;

 private:
  GLint previous_ = 0;
};

}  // namespace

const char* to_string(Format format) { return gl_enum_name(info(format).internal); }
int channels(Format format) { return info(format).channels; }

bool texture_fits(int width, int height, Format format) {
  if (width > max_texture_size() || height > max_texture_size()) return false;
  check_gl_errors("before a proxy texture");  // a refusal's error below is the proxy's own
  const FormatInfo fi = info(format);
  const PixelStoreGuard store(false, 0);
  glTexImage2D(GL_PROXY_TEXTURE_2D, 0, static_cast<GLint>(fi.internal), width, height, 0, fi.format, fi.type,
               nullptr);
  GLint accepted = 0;
  glGetTexLevelParameteriv(GL_PROXY_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &accepted);
  // A proxy's refusal may leave GL_OUT_OF_MEMORY or GL_INVALID_VALUE behind
  // (a lost context can return errors forever: bounded).
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  return accepted == width;
}

Texture::Texture(int width, int height, Format format, std::string label)
    : width_(width), height_(height), format_(format), label_(std::move(label)) {
  GLSURF_EXPECTS(width > 0 && height > 0, "texture '" + label_ + "' needs a positive size");
  check_gl_errors("before creating texture '" + label_ + "'");  // do not take the blame for others
  require_current_context("texture '" + label_ + "'");
  const int max_size = max_texture_size();
  if (width > max_size || height > max_size) {
    throw Error("texture '" + label_ + "' of " + std::to_string(width) + "x" + std::to_string(height) +
                " exceeds GL_MAX_TEXTURE_SIZE " + std::to_string(max_size));
  }
  const FormatInfo fi = info(format);
  glGenTextures(1, &id_);
  BindGuard bind(id_);
  {
    const PixelStoreGuard store(false, 0);  // nullptr: no data, not an offset into a bound buffer
    glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(fi.internal), width, height, 0, fi.format, fi.type,
                 nullptr);
  }
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, 0);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
  if (GLEW_KHR_debug) glObjectLabel(GL_TEXTURE, id_, -1, label_.c_str());
  const GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    release();
    throw Error("cannot allocate texture '" + label_ + "' " + std::to_string(width) + "x" +
                std::to_string(height) + " " + to_string(format) + ": " + gl_enum_name(e));
  }
}

Texture Texture::buffer(int texels, Format format, std::string label) {
  GLSURF_EXPECTS(texels > 0, "buffer texture '" + label + "' needs a positive size");
  GLSURF_EXPECTS(format == Format::RGBA32F || format == Format::RGBA32UI || format == Format::R32UI,
                 "buffer texture '" + label + "' must be RGBA32F, RGBA32UI or R32UI");
  check_gl_errors("before creating buffer texture '" + label + "'");
  require_current_context("buffer texture '" + label + "'");
  const int max_texels = max_buffer_texels();
  if (texels > max_texels) {
    throw Error("buffer texture '" + label + "' of " + std::to_string(texels) +
                " texels exceeds GL_MAX_TEXTURE_BUFFER_SIZE " + std::to_string(max_texels));
  }
  Texture t;
  t.width_ = texels;
  t.height_ = 1;
  t.format_ = format;
  t.label_ = std::move(label);
  glGenBuffers(1, &t.buffer_);
  GLint previous_buffer = 0, previous_texture = 0;
  glGetIntegerv(GL_TEXTURE_BUFFER_BINDING, &previous_buffer);
  glBindBuffer(GL_TEXTURE_BUFFER, t.buffer_);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(texels) * 4 * info(format).channels, nullptr,
               GL_DYNAMIC_COPY);
  glBindBuffer(GL_TEXTURE_BUFFER, static_cast<GLuint>(previous_buffer));
  glGenTextures(1, &t.id_);
  glGetIntegerv(GL_TEXTURE_BINDING_BUFFER, &previous_texture);
  glBindTexture(GL_TEXTURE_BUFFER, t.id_);
  glTexBuffer(GL_TEXTURE_BUFFER, info(format).internal, t.buffer_);
  glBindTexture(GL_TEXTURE_BUFFER, static_cast<GLuint>(previous_texture));
  if (GLEW_KHR_debug) {
    glObjectLabel(GL_TEXTURE, t.id_, -1, t.label_.c_str());
    glObjectLabel(GL_BUFFER, t.buffer_, -1, t.label_.c_str());
  }
  const GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    throw Error("cannot allocate buffer texture '" + t.label_ + "' of " + std::to_string(texels) +
                " texels: " + gl_enum_name(e));
  }
  return t;
}

Texture Texture::buffer_view(const Texture& storage, int texels, Format format, std::string label) {
  // As many channels of 32 bits as the storage, so that the view's texels
  // are its texels and GL_MAX_TEXTURE_BUFFER_SIZE, checked for them, holds.
  GLSURF_EXPECTS(storage.is_buffer() && texels > 0 && texels <= storage.width() &&
                     info(format).channels == info(storage.format()).channels,
                 "buffer view '" + label + "' of " + std::to_string(texels) + " texels does not fit '" +
                     storage.label() + "'");
  GLSURF_EXPECTS(format == Format::RGBA32F || format == Format::RGBA32UI || format == Format::R32UI,
                 "buffer view '" + label + "' must be RGBA32F, RGBA32UI or R32UI");
  check_gl_errors("before creating buffer view '" + label + "'");
  Texture t;
  t.width_ = texels;
  t.height_ = 1;
  t.format_ = format;
  t.label_ = std::move(label);
  t.buffer_ = storage.buffer_;
  t.owns_buffer_ = false;
  glGenTextures(1, &t.id_);
  GLint previous_texture = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_BUFFER, &previous_texture);
  glBindTexture(GL_TEXTURE_BUFFER, t.id_);
  glTexBuffer(GL_TEXTURE_BUFFER, info(format).internal, t.buffer_);  // the whole buffer: GL 3.3 has no range
  glBindTexture(GL_TEXTURE_BUFFER, static_cast<GLuint>(previous_texture));
  if (GLEW_KHR_debug) glObjectLabel(GL_TEXTURE, t.id_, -1, t.label_.c_str());
  const GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    throw Error("cannot make buffer view '" + t.label_ + "' of " + std::to_string(texels) +
                " texels: " + gl_enum_name(e));
  }
  return t;
}

unsigned Texture::target() const { return buffer_ ? GL_TEXTURE_BUFFER : GL_TEXTURE_2D; }

void Texture::copy_rows(const Texture& source, int first_row, int rows, long long first_texel) {
  const FormatInfo fi = info(source.format()), mine = info(format_);
  // The same 32-bit values, however many to a texel (an RGBA32UI source into
  // an R32UI buffer: four texels of this per texel of the source).
  const bool compatible =
      source.format() == format_ || (source.format() == Format::RGBA32UI && format_ == Format::R32UI);
  GLSURF_EXPECTS(is_buffer() && !source.is_buffer() && compatible,
                 "copy_rows: '" + label_ + "' must be a buffer texture and '" + source.label() +
                     "' a 2-D texture of its format (or RGBA32UI into R32UI)");
  GLSURF_EXPECTS(first_row >= 0 && rows > 0 && first_row + rows <= source.height() && first_texel >= 0 &&
                     static_cast<long long>(rows) * source.width() * fi.channels <=
                         (static_cast<long long>(width_) - first_texel) * mine.channels,
                 "copy_rows: rows " + std::to_string(first_row) + " + " + std::to_string(rows) + " of '" +
                     source.label() + "' do not fit '" + label_ + "'");
  GLint previous_read = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, source.id(), 0);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  {
    const PixelStoreGuard store(true, buffer_);
    // An offset into the bound pixel-pack buffer: bytes, 4 a channel.
    const auto offset = static_cast<std::uintptr_t>(first_texel) * mine.channels * 4u;
    glReadPixels(0, first_row, source.width(), rows, fi.format, fi.type, reinterpret_cast<void*>(offset));
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read));
  glDeleteFramebuffers(1, &fbo);
  check_gl_errors("copying '" + source.label() + "' into '" + label_ + "'");
}

Texture::Texture(Texture&& other) noexcept
    : id_(std::exchange(other.id_, 0)),
      buffer_(std::exchange(other.buffer_, 0)),
      owns_buffer_(other.owns_buffer_),
      width_(other.width_),
      height_(other.height_),
      format_(other.format_),
      label_(std::move(other.label_)) {}

Texture& Texture::operator=(Texture&& other) noexcept {
  if (this != &other) {
    release();
    id_ = std::exchange(other.id_, 0);
    buffer_ = std::exchange(other.buffer_, 0);
    owns_buffer_ = other.owns_buffer_;
    width_ = other.width_;
    height_ = other.height_;
    format_ = other.format_;
    label_ = std::move(other.label_);
  }
  return *this;
}

Texture::~Texture() { release(); }

void Texture::release() {
  if (id_) glDeleteTextures(1, &id_);
  if (buffer_ && owns_buffer_) glDeleteBuffers(1, &buffer_);
  id_ = 0;
  buffer_ = 0;
}

namespace {

void upload_any(const Texture& t, const void* data) {
  GLSURF_EXPECTS(!t.is_buffer(), "'" + t.label() + "' is a buffer texture: fill it with copy_rows");
  const FormatInfo fi = info(t.format());
  BindGuard bind(t.id());
  const PixelStoreGuard store(false, 0);  // rows of odd-width R8 images are not padded
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.width(), t.height(), fi.format, fi.type, data);
  check_gl_errors("uploading texture '" + t.label() + "'");
}

template <typename T>
std::vector<T> download_any(const Texture& t) {
  GLSURF_EXPECTS(!t.is_buffer(), "'" + t.label() + "' is a buffer texture");
  const FormatInfo fi = info(t.format());
  std::vector<T> out(static_cast<size_t>(t.width()) * t.height() * fi.channels);
  BindGuard bind(t.id());
  const PixelStoreGuard store(true, 0);
  glGetTexImage(GL_TEXTURE_2D, 0, fi.format, fi.type, out.data());
  check_gl_errors("reading back texture '" + t.label() + "'");
  return out;
}

}  // namespace

void Texture::upload(const std::uint8_t* data) {
  GLSURF_EXPECTS(format_ == Format::R8 || format_ == Format::RGBA8, "'" + label_ + "' is not R8 or RGBA8");
  upload_any(*this, data);
}

void Texture::upload(const std::uint32_t* data) {
  GLSURF_EXPECTS(info(format_).integer, "'" + label_ + "' is not an integer texture");
  upload_any(*this, data);
}

void Texture::upload(const float* data) {
  GLSURF_EXPECTS(!info(format_).integer && format_ != Format::R8 && format_ != Format::RGBA8,
                 "'" + label_ + "' is not a float texture");
  upload_any(*this, data);
}

std::vector<std::uint32_t> Texture::download_u32() const {
  GLSURF_EXPECTS(info(format_).integer, "'" + label_ + "' is not an integer texture");
  return download_any<std::uint32_t>(*this);
}

std::vector<float> Texture::download_f32() const {
  GLSURF_EXPECTS(!info(format_).integer && format_ != Format::R8 && format_ != Format::RGBA8,
                 "'" + label_ + "' is not a float texture");
  return download_any<float>(*this);
}

std::vector<std::uint8_t> Texture::download_u8() const {
  GLSURF_EXPECTS(format_ == Format::R8 || format_ == Format::RGBA8, "'" + label_ + "' is not R8 or RGBA8");
  return download_any<std::uint8_t>(*this);
}

}  // namespace glsurf::gl
