#include "sift/layout.hpp"

#include <algorithm>

namespace glsurf::sift {

AtlasLayout atlas_layout(const std::vector<cpu::sift::OctaveSize>& octaves, int images, int align) {
  AtlasLayout layout;
  layout.images = images;
  int top = 0;
  for (const cpu::sift::OctaveSize& octave : octaves) {
    const int column = (octave.width + align - 1) / align * align;
    for (int i = 0; i < images; ++i) {
      layout.rects.emplace_back((i % 2) * column, top + (i / 2) * octave.height, octave.width, octave.height);
    }
    layout.size.x = std::max(layout.size.x, 2 * column);
    top += (images + 1) / 2 * octave.height;
  }
  layout.size.y = top;
  return layout;
}

}  // namespace glsurf::sift
