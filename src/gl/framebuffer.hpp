// A move-only framebuffer object whose colour attachments are fixed at
// construction (one per fragment output, in order: location i -> attachment i).
// Completeness is checked once, here; an incomplete one throws glsurf::Error
// naming every attached texture and its format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gl/texture.hpp"

namespace glsurf::gl {

class Framebuffer {
 public:
  Framebuffer() = default;
  // `depth` (optional, Format::Depth32F, same size) enables early-Z culling
  // passes (PassRunner::DepthMode).
  Framebuffer(std::vector<const Texture*> colors, std::string label, const Texture* depth = nullptr);
  Framebuffer(Framebuffer&& other) noexcept;
  Framebuffer& operator=(Framebuffer&& other) noexcept;
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;
  ~Framebuffer();

  unsigned id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }
  const std::string& label() const { return label_; }
  bool writes(const Texture& t) const;  // is `t` one of the attachments?
  bool has_depth() const { return has_depth_; }
  const std::vector<std::string>& attachment_labels() const { return attachment_labels_; }

  // Reads the rectangle [x, x+w) x [y, y+h) of colour attachment `i` (row by
  // row, channels interleaved): the partial readbacks of small results.
  std::vector<std::uint32_t> read_u32(int i, int x, int y, int w, int h) const;
  std::vector<float> read_f32(int i, int x, int y, int w, int h) const;

 private:
  void release();
  unsigned id_ = 0;
  int width_ = 0, height_ = 0;
  std::string label_;
  std::vector<unsigned> attachments_;  // texture names, for the read/write check
  std::vector<std::string> attachment_labels_;
  std::vector<Format> formats_;
  bool has_depth_ = false;
};

}  // namespace glsurf::gl
