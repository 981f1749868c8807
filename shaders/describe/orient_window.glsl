// describe/orient_window.glsl — the orientation samples as the passes after
// orient_samples.frag read them, and one window sum (src/cpu/descriptor.cpp,
// window_sum).
//
// Needs: uniform SAMPLER u_samples (orient_samples.frag output;
//        common/linear_fetch.glsl), common/blocks.glsl, the define
//        SAMPLE_TEXELS (orient_samples.frag).

// A sample's unit direction from its weighted gradient, (0, 0) for a zero
// gradient (as the CPU's).
vec2 unit(vec2 g) {
  float n = length(g);
  return n > 0.0 ? g / n : vec2(0.0);
}

// The sum of the samples of the block at linear index `base`, each weighted
// by max(0, 2 cos(delta) - 1)^2, delta its angle to the unit direction u;
// `twice_u` is 2 u (exact), which saves a product per sample. (A padding
// sample is zero and adds nothing.)
vec2 window_sum(int base, vec2 twice_u) {
  vec2 sum = vec2(0.0);
  for (int t = 0; t < SAMPLE_TEXELS; ++t) {
    vec4 pair = FETCH_INDEX(u_samples, base + t);
    float w0 = max(0.0, dot(unit(pair.xy), twice_u) - 1.0);
    float w1 = max(0.0, dot(unit(pair.zw), twice_u) - 1.0);
    sum += (w0 * w0) * pair.xy;
    sum += (w1 * w1) * pair.zw;
  }
  return sum;
}
