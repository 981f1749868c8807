#include "window/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>

#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "io/draw.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace glsurf::app {

namespace {

std::string printable(const std::string& text) {
  std::string out;
  bool in_sequence = false;  // after a UTF-8 lead byte
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 32 && c <= 126) {
      out += ch, in_sequence = false;
    } else if (!(in_sequence && c >= 0x80 && c < 0xC0)) {
      out += '?', in_sequence = c >= 0xC0;
    }
  }
  return out;
}

void wrap(const std::string& line, float width, std::vector<std::string>& out) {
  std::string rest = line;
  size_t indent = 0;
  while (text_width(rest) > width) {
    size_t cut = std::string::npos;
    for (size_t p = rest.find(' ', indent + 1);
         p != std::string::npos && text_width(rest.substr(0, p)) <= width; p = rest.find(' ', p + 1))
      cut = p;
    if (cut == std::string::npos)
      cut = rest.find(' ', indent + 1);  // a first word wider than the view: alone
    const size_t next = cut == std::string::npos ? cut : rest.find_first_not_of(' ', cut);
    if (next == std::string::npos) break;
    out.push_back(rest.substr(0, cut));
    rest = "  " + rest.substr(next);
    indent = 2;
  }
  out.push_back(rest);
}

}  // namespace

double running_fps(double fps, double frame_ms) {
  if (!(frame_ms > 0)) return fps;
  const double rate = 1000.0 / frame_ms;
  return fps > 0 ? 0.9 * fps + 0.1 * rate : rate;
}

float hud_strip_height(int view_width, size_t lines) {
  return 12.0f * std::clamp(view_width / 640.0f, 1.0f, 2.0f) * static_cast<float>(lines) + 8.0f;
}

float text_width(const std::string& text) {
  return static_cast<float>(stb_easy_font_width(const_cast<char*>(text.c_str())));
}

std::vector<std::string> hud_lines(const std::vector<std::string>& lines, float width) {
  std::vector<std::string> out;
  for (const std::string& line : lines) wrap(printable(line), width, out);
  return out;
}

ViewRenderer::ViewRenderer(const gl::ShaderSource& shaders)
    : image_(shaders),
      keypoints_(shaders),
      lines_pass_(shaders, "view_lines"),
      hud_pass_(shaders, "view_hud"),
      hud_({2, 4}),
      lines_({2, 4}) {}

ViewSize initial_view_size(int image_width, int image_height) {
  const double w = std::max(image_width, 1), h = std::max(image_height, 1);
  const double scale = std::min({1.0, kMaxView.width / w, kMaxView.height / h});
  return {std::max(kMinView.width, static_cast<int>(std::lround(scale * w))),
          std::max(kMinView.height, static_cast<int>(std::lround(scale * h)))};
}

void ViewRenderer::resize(int width, int height) {
  if (frame_ && frame_.width() == width && frame_.height() == height) return;
  gl::Texture frame(width, height, gl::Format::RGBA8, "view_frame");
  gl::Framebuffer target({&frame}, "view_frame");
  frame_ = std::move(frame);
  target_ = std::move(target);
  image_height_ = 0;  // until the next render lays out its HUD
}

void ViewRenderer::fit(int image_width, int image_height, float x0, float width, float& ox, float& oy,
                       float& scale) const {
  const float height = image_height_ > 0 ? image_height_ : static_cast<float>(frame_.height());
  scale = std::min(width / image_width, height / image_height);
  ox = x0 + 0.5f * (width - scale * image_width);
  oy = 0.5f * (height - scale * image_height);
}

void ViewRenderer::placement(int image_width, int image_height, float& offset_x, float& offset_y,
                             float& scale) const {
  fit(image_width, image_height, 0.0f, static_cast<float>(frame_.width()), offset_x, offset_y, scale);
}

void ViewRenderer::draw_image(gl::PassRunner& runner, const gl::Texture& image,
                              const GpuDetector::OnGpu* keypoints, float ox, float oy, float scale,
                              bool whole) {
  const glm::vec2 view(static_cast<float>(frame_.width()), static_cast<float>(frame_.height()));
  if (whole) {
    image_.image(image).placement(glm::vec2(ox, oy), scale).draw(runner, target_);
  } else {  // this image's half of the view
    const int half = frame_.width() / 2;
    const int x0 = ox < half ? 0 : half;
    image_.image(image)
        .placement(glm::vec2(ox, oy), scale)
        .draw(runner, target_, {x0, 0, x0 == 0 ? half : frame_.width() - half, frame_.height()});
  }
  if (keypoints && keypoints->count > 0) {
    keypoints_.draw_keypoints(runner, target_, *keypoints, glm::vec2(ox, oy), scale, view);
  }
}

void ViewRenderer::KeypointsPass::draw_keypoints(gl::PassRunner& runner, const gl::Framebuffer& target,
                                                 const GpuDetector::OnGpu& keypoints, glm::vec2 offset,
                                                 float scale, glm::vec2 view_size) {
  GLSURF_EXPECTS(keypoints.angles,
                 "drawing keypoints needs their angles (detect_on_gpu, detect_and_compute)");
  // 68 vertices draw the second orientations' ticks too (view/keypoints.vert).
  const gl::Texture* second = keypoints.second_angles;
  runner.draw(key(), program(), target, GL_LINES, second ? 68 : 66, keypoints.count, nullptr,
              {{"u_list", *keypoints.list},
               {"u_angles", *keypoints.angles},
               {"u_second_angles", second ? *second : *keypoints.angles}},
              {{"u_offset", offset}, {"u_scale", scale}, {"u_view_size", view_size}});
}

void ViewRenderer::ColourPass::draw_buffer(gl::PassRunner& runner, const gl::Framebuffer& target,
                                           unsigned mode, const gl::VertexBuffer& buffer,
                                           glm::vec2 view_size) {
  runner.draw(key(), program(), target, mode, buffer.vertices(), 1, &buffer, {},
              {{"u_view_size", view_size}});
}

void ViewRenderer::render(gl::PassRunner& runner, const gl::Texture& image,
                          const GpuDetector::OnGpu& keypoints, const std::vector<std::string>& hud) {
  GLSURF_EXPECTS(frame_, "resize() before render()");
  lay_out_hud(hud, false);
  float ox = 0, oy = 0, scale = 1;
  placement(image.width(), image.height(), ox, oy, scale);
  draw_image(runner, image, &keypoints, ox, oy, scale, true);
  draw_hud(runner);
}

void ViewRenderer::render_pair(gl::PassRunner& runner, const gl::Texture& reference,
                               const gl::Texture& current, const GpuDetector::OnGpu& keypoints,
                               const std::vector<Line>& lines, const std::vector<std::string>& hud) {
  GLSURF_EXPECTS(frame_, "resize() before render()");
  lay_out_hud(hud, true);
  const float half = static_cast<float>(frame_.width() / 2);
  float rx = 0, ry = 0, rs = 1, cx = 0, cy = 0, cs = 1;
  fit(reference.width(), reference.height(), 0.0f, half, rx, ry, rs);
  fit(current.width(), current.height(), half, static_cast<float>(frame_.width()) - half, cx, cy, cs);
  draw_image(runner, reference, nullptr, rx, ry, rs, false);
  draw_image(runner, current, &keypoints, cx, cy, cs, false);
  if (!lines.empty()) {
    std::vector<float> v;
    for (const Line& l : lines) {
      const float ax = l.both_in_current ? cx + cs * l.x0 : rx + rs * l.x0;
      const float ay = l.both_in_current ? cy + cs * l.y0 : ry + rs * l.y0;
      v.insert(v.end(), {ax + 0.5f, ay + 0.5f, l.colour[0], l.colour[1], l.colour[2], l.colour[3]});
      v.insert(v.end(), {cx + cs * l.x1 + 0.5f, cy + cs * l.y1 + 0.5f, l.colour[0], l.colour[1], l.colour[2],
                         l.colour[3]});
    }
    lines_.set(v);
    const glm::vec2 view(static_cast<float>(frame_.width()), static_cast<float>(frame_.height()));
    lines_pass_.draw_buffer(runner, target_, GL_LINES, lines_, view);
  }
  draw_hud(runner);
}

void ViewRenderer::lay_out_hud(const std::vector<std::string>& lines, bool pair) {
  hud_runs_.clear();
  strip_height_ = 0;
  image_height_ = static_cast<float>(frame_.height());
  if (lines.empty()) return;
  constexpr float margin = 8.0f;
  hud_size_ = std::clamp(frame_.width() / 640.0f, 1.0f, 2.0f);
  hud_line_height_ = 12.0f * hud_size_;
  const float view_width = static_cast<float>(frame_.width());
  for (const std::string& line : hud_lines(lines, (view_width - 2 * margin) / hud_size_))
    hud_runs_.push_back({{line, {0.95f, 0.95f, 0.9f, 1.0f}}});
  // The legend: the keypoint colours of view/keypoints.vert, match mode's
  // line colours of view_frame.cpp.
  hud_runs_.push_back({{"dark blob (Laplacian +1)", {0.1f, 0.85f, 1.0f, 1.0f}},
                       {"   ", {1, 1, 1, 1}},
                       {"light blob (-1)", {1.0f, 0.55f, 0.1f, 1.0f}},
                       {"   circle: scale, tick: orientation", {0.7f, 0.7f, 0.7f, 1.0f}}});
  if (pair)
    hud_runs_.push_back({{"inlier", {0.15f, 0.9f, 0.25f, 1.0f}},
                         {"   ", {1, 1, 1, 1}},
                         {"outlier", {0.95f, 0.2f, 0.15f, 1.0f}},
                         {"   ", {1, 1, 1, 1}},
                         {"reference outline", {0.25f, 0.55f, 1.0f, 1.0f}},
                         {"   (reference left)", {0.7f, 0.7f, 0.7f, 1.0f}}});
  // At most half the frame: a small window keeps most of its picture.
  strip_height_ = std::min(hud_strip_height(frame_.width(), hud_runs_.size()),
                           std::floor(0.5f * static_cast<float>(frame_.height())));
  image_height_ = static_cast<float>(frame_.height()) - strip_height_;
}

void ViewRenderer::draw_hud(gl::PassRunner& runner) {
  const glm::vec2 view(static_cast<float>(frame_.width()), static_cast<float>(frame_.height()));
  if (hud_runs_.empty()) return;
  // Text quads from stb_easy_font (x, y, z, rgba8 per vertex), scaled by the
  // view's width, over an opaque strip below the image; two triangles per
  // quad, x y r g b a per vertex.
  std::vector<float> v;
  constexpr float margin = 8.0f;
  auto quad = [&](float x0, float y0, float x1, float y1, const float c[4]) {
    const float corners[6][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}, {x1, y1}, {x0, y1}};
    for (const auto& p : corners) v.insert(v.end(), {p[0], p[1], c[0], c[1], c[2], c[3]});
  };
  const float panel[4] = {0.1f, 0.1f, 0.1f, 1.0f};
  quad(0, image_height_, view.x, view.y, panel);
  static char buffer[64 * 1024];
  for (size_t i = 0; i < hud_runs_.size(); ++i) {
    float x = margin;
    const float top = image_height_ + margin * 0.5f + hud_line_height_ * static_cast<float>(i);
    for (const Run& run : hud_runs_[i]) {
      unsigned char colour[4] = {255, 255, 255, 255};
      const int quads =
          stb_easy_font_print(0, 0, const_cast<char*>(run.text.c_str()), colour, buffer, sizeof buffer);
      for (int q = 0; q < quads; ++q) {
        float p[4][2];
        for (int c = 0; c < 4; ++c) {
          std::memcpy(p[c], buffer + (q * 4 + c) * 16, 2 * sizeof(float));
          p[c][0] = x + hud_size_ * p[c][0];
          p[c][1] = top + hud_size_ * p[c][1];
        }
        quad(p[0][0], p[0][1], p[2][0], p[2][1], run.colour);
      }
      x += hud_size_ * text_width(run.text);
    }
  }
  hud_.set(v);
  hud_pass_.draw_buffer(runner, target_, GL_TRIANGLES, hud_, view);
}

void ViewRenderer::write_png(const std::string& path) const {
  const std::vector<std::uint8_t> rgba = frame_.download_u8();  // row 0 = top of the picture
  glsurf::write_png(path, frame_.width(), frame_.height(), 4, rgba.data());
}

}  // namespace glsurf::app
