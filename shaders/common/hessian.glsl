// common/hessian.glsl — the weight of Dxy^2 in det(H) = Dxx Dyy - w(l) Dxy^2
// for lobe l, with each derivative divided by its lobe's area: w(l) =
// l / (2 (2l - 1)), Bay et al.'s balance of the box filters (0.9^2 on the raw
// sums at L = 9) carried over to the lobe-area normalisation. The CPU
// reference's cpu::dxy_weight (src/cpu/detector.hpp) derives it and
// computes the same value (to the rounding of a GLSL division).
float dxy_weight(int l) { return float(l) / float(4 * l - 2); }
