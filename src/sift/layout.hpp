// Where GPU SIFT keeps an image pyramid: every octave's images in one
// texture, an atlas. Octave k's band lies below octave k - 1's; within a
// band, image i of the octave is in column i % 2 and row i / 2, each cell
// the octave's size, its columns `align` pixels apart rounded up. The atlas
// is 2 W_0 wide (rounded up likewise) and sum_k ceil(n / 2) H_k tall for n
// images per octave (W_0 x H_0 the first octave's size, twice the image's
// when it is doubled). The Gaussian images (s + 3 per octave) and the DoG
// images (s + 2) each have an atlas of this layout with align = kPack,
// packed (shaders/sift/packed.glsl): an RGBA32F texture of size.x / kPack x
// size.y texels, four horizontally adjacent pixels to a texel, every image
// starting at a texel. Rectangles and sizes here are in pixels; downloaded,
// such a texture is the atlas's pixels row by row, size.x to a row.
#pragma once

#include <glm/glm.hpp>
#include <vector>

#include "cpu/sift.hpp"

namespace glsurf::sift {

// Pixels to a texel of the packed atlases.
constexpr int kPack = 4;

struct AtlasLayout {
  glm::ivec2 size{0, 0};
  int images = 0;                 // per octave
  std::vector<glm::ivec4> rects;  // [k * images + i]: x, y, width, height
  glm::ivec4 rect(int k, int i) const { return rects[static_cast<size_t>(k) * images + i]; }
};

AtlasLayout atlas_layout(const std::vector<cpu::sift::OctaveSize>& octaves, int images, int align = 1);

}  // namespace glsurf::sift
