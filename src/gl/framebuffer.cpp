#include "gl/framebuffer.hpp"

#include "gl/error.hpp"
#include "gl/gl.hpp"

#include <algorithm>
#include <utility>

namespace glsurf::gl {

Framebuffer::Framebuffer(std::vector<const Texture*> colors, std::string label)
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
  }
  width_ = colors[0]->width();
  height_ = colors[0]->height();
  std::string described;
  for (const Texture* t : colors) {
    GLSURF_EXPECTS(t->width() == width_ && t->height() == height_,
                   "attachments of framebuffer '" + label_ + "' differ in size");
    attachments_.push_back(t->id());
    attachment_labels_.push_back(t->label());
    described += (described.empty() ? "" : ", ") + t->label() + " " + std::to_string(t->width()) +
                 "x" + std::to_string(t->height()) + " " + to_string(t->format());
  }

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
    : id_(std::exchange(other.id_, 0)), width_(other.width_), height_(other.height_),
      label_(std::move(other.label_)), attachments_(std::move(other.attachments_)),
      attachment_labels_(std::move(other.attachment_labels_)) {}

Framebuffer& Framebuffer::operator=(Framebuffer&& other) noexcept {
  if (this != &other) {
    release();
    id_ = std::exchange(other.id_, 0);
    width_ = other.width_;
    height_ = other.height_;
    label_ = std::move(other.label_);
    attachments_ = std::move(other.attachments_);
    attachment_labels_ = std::move(other.attachment_labels_);
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

}  // namespace glsurf::gl
