// The per-keypoint texture layouts of shaders/common/blocks.glsl, on the C++
// side: rows of a kListWidth-wide texture for runs of texels per keypoint,
// or for keypoints in width x height tiles.
#pragma once

#include <algorithm>

#include "gl/shared_constants.hpp"

namespace glsurf::blocks {

// Rows for `texels` texels in runs.
inline int rows_for(int texels) {
  return std::max(1, (texels + shader::kListWidth - 1) / shader::kListWidth);
}

// Rows for `count` keypoints in width x height tiles (kListWidth / width of
// them to a row of tiles).
inline int tile_rows(int count, int width, int height) {
  const int per_row = shader::kListWidth / width;
  return std::max(1, (count + per_row - 1) / per_row) * height;
}

}  // namespace glsurf::blocks
