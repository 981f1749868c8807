#include "gl/framebuffer.hpp"

#include <algorithm>
#include <utility>

#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "gl/state.hpp"

namespace glsurf::gl {

Framebuffer::Framebuffer(std::vector<const Texture*> colors, std::string label, const Texture* depth)
    : label_(std::move(label)) {
  GLSURF_EXPECTS(!colors.empty(), "framebuffer '" + label_ + "' needs a colour attachment");
  GLint max_attachments = 0;
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &max_attachments);
  if (static_cast<GLint>(colors.size()) > max_attachments) {
    throw Error("framebuffer '" + label_ + "' needs " + std::to_string(colors.size()) +
                " render targets, the driver allows " + std::to_string(max_attachments));
  }
  for (const Texture* t : colors) {
    GLSURF_EXPECTS(t && *t, "framebuffer '" + label_ + "' given an empty texture");
    GLSURF_EXPECTS(!t->is_buffer(), "framebuffer '" + label_ + "': a buffer texture is not a render target");
  }
  width_ = colors[0]->width();
  height_ = colors[0]->height();
  std::string described;
  for (const Texture* t : colors) {
    GLSURF_EXPECTS(t->width() == width_ && t->height() == height_,
                   "attachments of framebuffer '" + label_ + "' differ in size");
    attachments_.push_back(t->id());
    attachment_labels_.push_back(t->label());
    formats_.push_back(t->format());
    described += (described.empty() ? "" : ", ") + t->label() + " " + std::to_string(t->width()) + "x" +
                 std::to_string(t->height()) + " " + to_string(t->format());
  }

  // Checked before the object exists: a throw below it would leave it bound.
  GLSURF_EXPECTS(!depth || (depth->format() == Format::Depth32F && depth->width() == width_ &&
                            depth->height() == height_),
                 "depth attachment of '" + label_ + "' must be Depth32F of the same size");

  GLint previous = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
  glGenFramebuffers(1, &id_);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, id_);
  std::vector<GLenum> buffers;
  for (size_t i = 0; i < colors.size(); ++i) {
    const GLenum attachment = GL_COLOR_ATTACHMENT0 + static_cast<GLenum>(i);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, attachment, GL_TEXTURE_2D, colors[i]->id(), 0);
    buffers.push_back(attachment);
  }
  if (depth) {
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth->id(), 0);
    attachments_.push_back(depth->id());  // never read while attached, either
    described += ", depth " + depth->label();
    has_depth_ = true;
  }
  glDrawBuffers(static_cast<GLsizei>(buffers.size()), buffers.data());
  const GLenum status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
  if (GLEW_KHR_debug) glObjectLabel(GL_FRAMEBUFFER, id_, -1, label_.c_str());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous));
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    release();
    throw Error("framebuffer '" + label_ + "' is incomplete (" + gl_enum_name(status) +
                ") with attachments: " + described);
  }
  try {
    check_gl_errors("creating framebuffer '" + label_ + "'");
  } catch (...) {
    release();
    throw;
  }
}

Framebuffer::Framebuffer(Framebuffer&& other) noexcept
    : id_(std::exchange(other.id_, 0)),
      width_(other.width_),
      height_(other.height_),
      label_(std::move(other.label_)),
      attachments_(std::move(other.attachments_)),
      attachment_labels_(std::move(other.attachment_labels_)),
      formats_(std::move(other.formats_)),
      has_depth_(other.has_depth_) {}

Framebuffer& Framebuffer::operator=(Framebuffer&& other) noexcept {
  if (this != &other) {
    release();
    id_ = std::exchange(other.id_, 0);
    width_ = other.width_;
    height_ = other.height_;
    label_ = std::move(other.label_);
    attachments_ = std::move(other.attachments_);
    attachment_labels_ = std::move(other.attachment_labels_);
    formats_ = std::move(other.formats_);
    has_depth_ = other.has_depth_;
  }
  return *this;
}

Framebuffer::~Framebuffer() { release(); }

void Framebuffer::release() {
  if (id_) glDeleteFramebuffers(1, &id_);
  id_ = 0;
}

bool Framebuffer::writes(const Texture& t) const {
  return std::find(attachments_.begin(), attachments_.end(), t.id()) != attachments_.end();
}

namespace {

template <typename T>
std::vector<T> read_pixels(const Framebuffer& fb, int i, int x, int y, int w, int h, Format format,
                           bool integer) {
  GLSURF_EXPECTS(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= fb.width() && y + h <= fb.height(),
                 "read outside framebuffer '" + fb.label() + "'");
  const int n = channels(format);
  GLenum pixel_format = 0;
  switch (n) {
    case 1:
      pixel_format = integer ? GL_RED_INTEGER : GL_RED;
      break;
    case 2:
      pixel_format = integer ? GL_RG_INTEGER : GL_RG;
      break;
    default:
      pixel_format = integer ? GL_RGBA_INTEGER : GL_RGBA;
      break;
  }
  std::vector<T> out(static_cast<size_t>(w) * h * n);
  GLint previous = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fb.id());
  glReadBuffer(GL_COLOR_ATTACHMENT0 + static_cast<GLenum>(i));
  {
    const PixelStoreGuard store(true, 0);
    glReadPixels(x, y, w, h, pixel_format, integer ? GL_UNSIGNED_INT : GL_FLOAT, out.data());
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous));
  check_gl_errors("reading back '" + fb.attachment_labels()[static_cast<size_t>(i)] + "'");
  return out;
}

}  // namespace

std::vector<std::uint32_t> Framebuffer::read_u32(int i, int x, int y, int w, int h) const {
  GLSURF_EXPECTS(i >= 0 && i < static_cast<int>(formats_.size()), "no attachment " + std::to_string(i));
  const Format f = formats_[static_cast<size_t>(i)];
  GLSURF_EXPECTS(f == Format::R32UI || f == Format::RG32UI || f == Format::RGBA32UI,
                 "attachment is not unsigned integer");
  return read_pixels<std::uint32_t>(*this, i, x, y, w, h, f, true);
}

std::vector<float> Framebuffer::read_f32(int i, int x, int y, int w, int h) const {
  GLSURF_EXPECTS(i >= 0 && i < static_cast<int>(formats_.size()), "no attachment " + std::to_string(i));
  const Format f = formats_[static_cast<size_t>(i)];
  GLSURF_EXPECTS(f == Format::R32F || f == Format::RG32F || f == Format::RGBA32F, "attachment is not float");
  return read_pixels<float>(*this, i, x, y, w, h, f, false);
}

}  // namespace glsurf::gl
