// orientation/window.glsl — the orientation samples as the passes after
// orient_samples.frag read them, and one window sum (src/cpu/descriptor.cpp,
// window_sum).
//
// Needs: uniform SAMPLER u_samples (orient_samples.frag output;
//        common/linear_fetch.glsl), common/blocks.glsl, the define
//        SAMPLE_TILE (orient_samples.frag).

// A sample's unit direction from its weighted gradient, (0, 0) for a zero
// gradient (as the CPU's).
vec2 unit(vec2 g) {
  float n = length(g);
  return n > 0.0 ? g / n : vec2(0.0);
}

// FETCH_INDEX's index of the first texel of keypoint k's samples, and of
// texel t (< kTileTexels, row by row) of the tile that starts there.
const int kTileTexels = SAMPLE_TILE.x * SAMPLE_TILE.y;
int samples_origin(int k) {
  ivec2 origin = tile_texel(k, 0, SAMPLE_TILE);
  return origin.y * kListWidth + origin.x;
}
int sample_index(int origin, int t) { return origin + (t / SAMPLE_TILE.x) * kListWidth + t % SAMPLE_TILE.x; }

// The sum of keypoint k's samples, the tile at index `origin`
// (samples_origin), each weighted by max(0, 2 cos(delta) - 1)^2, delta its
// angle to the unit direction u; `twice_u` is 2 u (exact), which saves a
// product per sample. (A padding sample is zero and adds nothing.)
vec2 window_sum(int origin, vec2 twice_u) {
  vec2 sum = vec2(0.0);
  // Row by row, as sample_index, without its division: this runs up to
  // u_max_sums times per keypoint (orient_best.frag), where the division
  // cost about 6 % of that pass on llvmpipe.
  for (int r = 0; r < SAMPLE_TILE.y; ++r) {
    for (int c = 0; c < SAMPLE_TILE.x; ++c) {
      vec4 pair = FETCH_INDEX(u_samples, origin + r * kListWidth + c);
      float w0 = max(0.0, dot(unit(pair.xy), twice_u) - 1.0);
      float w1 = max(0.0, dot(unit(pair.zw), twice_u) - 1.0);
      sum += (w0 * w0) * pair.xy;
      sum += (w1 * w1) * pair.zw;
    }
  }
  return sum;
}
