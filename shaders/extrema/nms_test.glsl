// extrema/nms_test.glsl — the mark passes' test (nms_mark.frag,
// nms_mark_pair.frag), and the border test it shares with extrema.frag
// (block_inside): sample p of layer l survives when its 3x3x3 block lies
// inside the image (largest_filter: the side of layer l+1's filter), det v >
// threshold, v >= the 3x3 maximum of its own layer (it is that maximum) and
// v > the 3x3 maxima of layers l-1 and l+1. extrema.frag then repeats the
// exact strict test on the 26 neighbours, so plateaus that pass here (v equal
// to a neighbour in its own layer) are still rejected there.
//
// Needs: uniforms u_threshold, u_step, u_image_size.

// Whether the 3x3x3 block around sample p lies inside the image, the largest
// filter (side largest_filter) deciding. Then p's 3x3 neighbours are inside
// the sample grid too. (extrema.frag uses it as well.)
bool block_inside(ivec2 p, int largest_filter) {
  int half_side = largest_filter / 2;
  ivec2 lo = (p - 1) * u_step, hi = (p + 1) * u_step;
  return all(greaterThanEqual(lo, ivec2(half_side))) && all(lessThanEqual(hi + half_side, u_image_size - 1));
}

bool survives(ivec2 p, int largest_filter, float v, float below, float mid, float above) {
  return block_inside(p, largest_filter) && v > u_threshold && v >= mid && v > below && v > above;
}
