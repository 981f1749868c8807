// common/keep.glsl — which candidate-atlas texels the HistoPyramid counts and
// lists: keypoints (response > 0) and, with a selection, only those whose
// response bits compare with the threshold chosen by select/choose.frag
// (u_selection, RGBA32UI 1x1, in x), the bits of the N-th strongest response:
//   SELECT        >= threshold: the N strongest and exact ties with the N-th
//   SELECT_ABOVE  >  threshold: the fewer than N strictly stronger ones
//   SELECT_AT     == threshold: the ties alone
// Positive floats order as their bit patterns do.

#if defined(SELECT) || defined(SELECT_ABOVE) || defined(SELECT_AT)
uniform usampler2D u_selection;
#endif

bool keep(float response) {
#if defined(SELECT)
  return response > 0.0 && floatBitsToUint(response) >= texelFetch(u_selection, ivec2(0), 0).x;
#elif defined(SELECT_ABOVE)
  return response > 0.0 && floatBitsToUint(response) > texelFetch(u_selection, ivec2(0), 0).x;
#elif defined(SELECT_AT)
  return response > 0.0 && floatBitsToUint(response) == texelFetch(u_selection, ivec2(0), 0).x;
#else
  return response > 0.0;
#endif
}
