#include "surf/extrema.hpp"

#include "gl/error.hpp"
#include "gl/gl.hpp"

#include <algorithm>

namespace glsurf {

ExtremaStage::ExtremaStage(const gl::ShaderSource& shaders, const DetectorConfig& config)
    : config_(config), program_(shaders, "common/fullscreen.vert", "detect/extrema.frag") {}

void ExtremaStage::configure(const HessianStage& hessian, int width, int height) {
  const int maps = maps_per_octave();
  std::vector<AtlasRect> rects;
  int atlas_w = 0, atlas_h = 0, column_y = 0;
  const glm::ivec2 first_grid = hessian.octaves().front().grid;
  for (const HessianOctave& oct : hessian.octaves()) {
    for (int m = 0; m < maps; ++m) {
      AtlasRect r{oct.octave, 2 * m + 1, m * oct.grid.x, 0, oct.grid.x, oct.grid.y};
      if (oct.octave > 0) {
        r.x = maps * first_grid.x + m * oct.grid.x;
        r.y = column_y;
      }
      atlas_w = std::max(atlas_w, r.x + r.width);
      atlas_h = std::max(atlas_h, r.y + r.height);
      rects.push_back(r);
    }
    if (oct.octave > 0) column_y += oct.grid.y;
  }
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (atlas_w > max_size || atlas_h > max_size) {
    throw Error("image of " + std::to_string(width) + "x" + std::to_string(height) + " is too large: its " +
                "candidate atlas needs " + std::to_string(atlas_w) + "x" + std::to_string(atlas_h) +
                " texels and the driver allows " + std::to_string(max_size) + " per side");
  }
  gl::Texture atlas(atlas_w, atlas_h, gl::Format::RGBA32F, "candidates");
  gl::Framebuffer target({&atlas}, "candidates");
  rects_ = std::move(rects);
  atlas_ = std::move(atlas);
  target_ = std::move(target);
  width_ = width;
  height_ = height;
}

void ExtremaStage::run(gl::PassRunner& runner, const HessianStage& hessian) {
  GLSURF_EXPECTS(width_ > 0, "configure() before run()");
  runner.clear(target_, glm::vec4(0.0f));
  for (const AtlasRect& r : rects_) {
    const HessianOctave& oct = hessian.octaves()[static_cast<size_t>(r.octave)];
    for (int l = r.first_layer; l <= std::min(r.first_layer + 1, config_.n_octave_layers); ++l) {
      runner.run_in({r.x, r.y, r.width, r.height}, "detect_extrema", program_, target_,
                    {{"u_below", oct.det[static_cast<size_t>((l - 1) / 4)]},
                     {"u_mid", oct.det[static_cast<size_t>(l / 4)]},
                     {"u_above", oct.det[static_cast<size_t>((l + 1) / 4)]},
                     {"u_trace", oct.trace[static_cast<size_t>(l / 4)]}},
                    {{"u_channels", glm::ivec3((l - 1) % 4, l % 4, (l + 1) % 4)},
                     {"u_threshold", config_.hessian_threshold},
                     {"u_step", oct.step},
                     {"u_filters", glm::ivec3(filter_size(r.octave, l - 1), filter_size(r.octave, l),
                                              filter_size(r.octave, l + 1))},
                     {"u_image_size", glm::ivec2(width_, height_)},
                     {"u_origin", glm::ivec2(r.x, r.y)}});
    }
  }
  gl::check_gl_errors("extrema");
}

}  // namespace glsurf
