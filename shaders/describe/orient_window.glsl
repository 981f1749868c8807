// describe/orient_window.glsl — one window sum of the orientation assignment
// (src/cpu/descriptor.cpp, window_sum): the SAMPLES samples of the block at
// linear index `base`, each weighted by max(0, 2 cos(delta) - 1)^2, delta its
// angle to the unit direction `u`.
//
// Needs: uniform SAMPLER u_samples (orient_samples.frag output; common/linear_fetch.glsl),
//        common/blocks.glsl, the define SAMPLES (orient_samples.frag).

vec2 window_sum(int base, vec2 u) {
  vec2 sum = vec2(0.0);
  for (int j = 0; j < SAMPLES; ++j) {
    vec4 sample_j = FETCH_INDEX(u_samples, base + j);
    float w = max(0.0, 2.0 * dot(sample_j.zw, u) - 1.0);
    sum += (w * w) * sample_j.xy;
  }
  return sum;
}
