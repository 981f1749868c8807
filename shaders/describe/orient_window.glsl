// describe/orient_window.glsl — reading the orientation samples
// (orient_samples.frag output: a SAMPLE_TILE tile per keypoint) and one
// window sum of the orientation assignment (src/cpu/descriptor.cpp,
// window_sum).
//
// Needs: uniform SAMPLER u_samples (orient_samples.frag output; common/linear_fetch.glsl),
//        common/blocks.glsl, the defines SAMPLES and SAMPLE_TILE (orient_samples.frag).

// Linear index (for FETCH_INDEX) of sample j of the keypoint whose tile
// starts at linear index `origin` (linear_of(tile_texel(k, 0, SAMPLE_TILE))).
int sample_index(int origin, int j) { return origin + (j / SAMPLE_TILE.x) * kListWidth + j % SAMPLE_TILE.x; }

// The sum of the samples of the tile at `origin`, each weighted by max(0,
// 2 cos(delta) - 1)^2, delta its angle to the unit direction `u`.
vec2 window_sum(int origin, vec2 u) {
  vec2 sum = vec2(0.0);
  for (int j = 0; j < SAMPLES; ++j) {
    vec4 sample_j = FETCH_INDEX(u_samples, sample_index(origin, j));
    float w = max(0.0, 2.0 * dot(sample_j.zw, u) - 1.0);
    sum += (w * w) * sample_j.xy;
  }
  return sum;
}
