// common/keep.glsl — which candidate-atlas texels the HistoPyramid counts and
// lists: keypoints (response > 0) and, in the SELECT variant, only those whose
// response bits are >= the threshold chosen by select/choose.frag (u_selection,
// RGBA32UI 1x1, in x): the N strongest and exact ties with the N-th.
// Positive floats order as their bit patterns do.

#ifdef SELECT
uniform usampler2D u_selection;
#endif

bool keep(float response) {
#ifdef SELECT
  return response > 0.0 && floatBitsToUint(response) >= texelFetch(u_selection, ivec2(0), 0).x;
#else
  return response > 0.0;
#endif
}
