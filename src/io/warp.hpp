// Resampling an image through a homography: the synthetic sequences of
// `glsurf warp` and the rotation tests.
//
// Output pixel (x, y) takes the value of the input at H^-1 (x, y) (pixel
// centres at whole coordinates, as everywhere in glsurf), interpolated with a
// windowed sinc: Lanczos with 3 lobes, L(t) = sinc(t) sinc(t / 3) for
// |t| < 3, separable, 6 x 6 taps, weights normalised to sum 1. Bilinear
// interpolation instead blurs by an amount that depends on the sub-pixel
// phase (it halves a 3-pixel period's amplitude at a half-pixel offset and
// leaves it untouched at whole ones), so a warped image would be blurred
// unevenly, more along some directions than others.
//
// Where H shrinks the image, the kernel is widened by the local shrink
// factor f (the largest singular value of H^-1's Jacobian at the pixel, at
// most the image's longer side; the taps reach 3f input pixels either way),
// so that it also removes the frequencies the output cannot hold. It widens
// alike in both directions, so a strong perspective blurs along its short
// axis more than it must. Where H enlarges or only turns, f = 1.
//
// Taps past the border are clamped onto it. Every output pixel takes the
// value at its preimage H^-1 (x, y), whatever the sign of the projective
// coordinate (H is defined up to a factor, a negative one too, and eval
// maps points the same way); one whose preimage is outside the input
// (farther than 1e-6 px: exact quarter turns stay inside) is 0. The values
// are neither rounded nor clamped: a windowed sinc overshoots by a few grey
// levels next to edges.
#pragma once

#include <vector>

#include "glsurf/geometry.hpp"
#include "io/image.hpp"

namespace glsurf {

// `to_output` maps input to output coordinates (the H1toNp convention).
// Returns width x height values, row by row. Asserts on empty sizes and a
// singular `to_output`.
std::vector<double> warp_image(const GrayImage& image, const Homography& to_output, int width, int height);

}  // namespace glsurf
