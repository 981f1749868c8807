// The viewer's picture: the image scaled to fit, the keypoints drawn straight
// from the detector's point list on the GPU (instanced circles and
// orientation ticks, coloured by Laplacian sign), and a heads-up display in
// an opaque strip below the image (never over it) that ends with a legend of
// the colours. With no HUD lines there is no strip: the image fills the frame.
// Rendered into an offscreen RGBA8 frame, which a window shows (blit) and a
// screenshot writes, so windowed and headless pictures are the same pixels.
#pragma once

#include <string>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/pass.hpp"
#include "gl/shader_source.hpp"
#include "gl/texture.hpp"
#include "surf/detector.hpp"

namespace glsurf::app {

// The view's size for an image of w x h pixels when none is asked for: the
// image's aspect, scaled down to fit kMaxView, but at least kMinView each way
// (an image of extreme aspect, 16384 x 23 say, is letterboxed in a usable
// window instead of getting one 1280 x 1).
struct ViewSize {
  int width = 0, height = 0;
};
constexpr ViewSize kMaxView{1280, 1024}, kMinView{320, 200};
ViewSize initial_view_size(int image_width, int image_height);

// The HUD's lines as drawn: every character outside ASCII 32..126 (a UTF-8
// sequence in a file name, a control character) as one '?', since
// stb_easy_font reads other bytes from outside its table; lines wider than
// `width` (stb_easy_font units) broken at spaces, continuations indented by
// two; a word wider than that stays whole, on a line of its own.
std::vector<std::string> hud_lines(const std::vector<std::string>& lines, float width);
// The height of the HUD's strip of `lines` lines (legend included) in a view
// `view_width` pixels wide: the text grows with the view, 1 to 2 times
// stb_easy_font's 12 units a line.
float hud_strip_height(int view_width, size_t lines);
// The width of one line of HUD text in stb_easy_font units.
float text_width(const std::string& text);

// The HUD's frame rate after a frame of `frame_ms`: a running mean (weight
// 0.1 for the new frame) that starts from the first frame's rate, not from 0
// (`fps` 0: none yet). A frame of no measurable time leaves it as it was.
double running_fps(double fps, double frame_ms);

class ViewRenderer {
 public:
  explicit ViewRenderer(const gl::ShaderSource& shaders);
  void resize(int width, int height);  // the frame's size; allocates only when it changes
  void render(gl::PassRunner& runner, const gl::Texture& image, const GpuDetector::OnGpu& keypoints,
              const std::vector<std::string>& hud);
  // Match mode: the reference (left half) and the current image (right half,
  // with its keypoints), and coloured lines given in each image's pixels:
  // per line x0 y0 (reference) x1 y1 (current) r g b a.
  struct Line {
    float x0, y0, x1, y1;
    float colour[4];
    bool both_in_current = false;  // both ends in the current image (the outline)
  };
  void render_pair(gl::PassRunner& runner, const gl::Texture& reference, const gl::Texture& current,
                   const GpuDetector::OnGpu& keypoints, const std::vector<Line>& lines,
                   const std::vector<std::string>& hud);
  const gl::Framebuffer& frame() const { return target_; }
  const gl::Texture& frame_texture() const { return frame_; }
  void write_png(const std::string& path) const;  // atomically
  // Where the image lands: view pixel = offset + scale * image pixel.
  void placement(int image_width, int image_height, float& offset_x, float& offset_y, float& scale) const;

 private:
  void draw_image(gl::PassRunner& runner, const gl::Texture& image, const GpuDetector::OnGpu* keypoints,
                  float ox, float oy, float scale, bool clear);
  // The HUD's lines wrapped to the view, the legend after them, and the
  // strip's height (image_height_ is what is left above it).
  void lay_out_hud(const std::vector<std::string>& hud, bool pair);
  void draw_hud(gl::PassRunner& runner);
  void fit(int image_width, int image_height, float x0, float width, float& ox, float& oy,
           float& scale) const;

  // The grey image scaled to fit the view (view/image.frag).
  class ImagePass : public gl::Pass {
   public:
    explicit ImagePass(const gl::ShaderSource& shaders) : Pass(shaders, "view_image", "view/image.frag") {}
    ImagePass& image(const gl::Texture& grey) { return input("u_image", grey), *this; }
    // View pixel = offset + scale * image pixel.
    ImagePass& placement(glm::vec2 offset, float scale) {
      uniform("u_offset", offset);
      return uniform("u_scale", scale), *this;
    }
  };
  // The keypoints as circles with orientation ticks, read from the point list
  // (view/keypoints.vert, view/colour.frag). gl::Pass draws no instanced
  // lines, so draw_keypoints() hands the program to PassRunner::draw itself.
  class KeypointsPass : public gl::Pass {
   public:
    explicit KeypointsPass(const gl::ShaderSource& shaders)
        : Pass(shaders, "view_keypoints", "view/colour.frag", {}, "view/keypoints.vert") {}
    // keypoints.count of them, placed as ImagePass::placement says, in a view of `view_size` pixels.
    void draw_keypoints(gl::PassRunner& runner, const gl::Framebuffer& target,
                        const GpuDetector::OnGpu& keypoints, glm::vec2 offset, float scale,
                        glm::vec2 view_size);
  };
  // Coloured geometry given in view pixels (view/text.vert, view/colour.frag):
  // the HUD's text over its panel, match mode's lines; an instance for each,
  // with its timer key. gl::Pass draws no vertex buffers, so draw_buffer()
  // hands the program to PassRunner::draw itself.
  class ColourPass : public gl::Pass {
   public:
    ColourPass(const gl::ShaderSource& shaders, const char* key)
        : Pass(shaders, key, "view/colour.frag", {}, "view/text.vert") {}
    // `buffer`'s vertices as GL `mode` primitives (GL_LINES, GL_TRIANGLES).
    void draw_buffer(gl::PassRunner& runner, const gl::Framebuffer& target, unsigned mode,
                     const gl::VertexBuffer& buffer, glm::vec2 view_size);
  };

  ImagePass image_;
  KeypointsPass keypoints_;
  ColourPass lines_pass_, hud_pass_;
  gl::Texture frame_;
  gl::Framebuffer target_;
  gl::VertexBuffer hud_, lines_;
  // Laid out by lay_out_hud: each line as runs of text in one colour each.
  struct Run {
    std::string text;
    float colour[4];
  };
  std::vector<std::vector<Run>> hud_runs_;
  float hud_size_ = 1, hud_line_height_ = 12, strip_height_ = 0, image_height_ = 0;
};

}  // namespace glsurf::app
