// common/sides.glsl — the whole box sides the descriptor passes take for a
// keypoint of scale s (src/cpu/descriptor.cpp: even_side, nearest_side).
#ifndef COMMON_SIDES_GLSL
#define COMMON_SIDES_GLSL

// Even side nearest to `length`, at least 2 (Haar wavelets).
int even_side(float length) { return max(2, 2 * int(floor(length * 0.5 + 0.5))); }
// Side nearest to `length`, at least 2 (box gradients).
int nearest_side(float length) { return max(2, int(floor(length + 0.5))); }

#endif
