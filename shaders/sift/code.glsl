// sift/code.glsl — how SIFT's candidate atlas keeps three things in one float
// channel (sift/extrema.frag writes, compact/hp_traverse.frag's SIFT variant
// reads): the sign of D^, the extremum's DoG layer (1 .. s, s <= 126) and its
// sub-layer offset in (-0.5, 0.5), as the float sign(D^) 2^layer (1.5 +
// offset). The exponent holds the layer exactly; the mantissa holds the
// offset to 2^-23 (1.5 + offset is rounded once, to at most 2^-24, and kept
// below 2 so that the layer cannot carry).

float encode_extremum(float sign_d, int layer, float offset_s) {
  float m = min(1.5 + offset_s, uintBitsToFloat(0x3FFFFFFFu));  // [1, 2), the largest float below 2 at most
  uint bits = (uint(layer + 127) << 23) | (floatBitsToUint(m) & 0x007FFFFFu);
  return sign_d < 0.0 ? -uintBitsToFloat(bits) : uintBitsToFloat(bits);
}

// The sign of D^ (+1 or -1); `layer` and `offset_s` from the code.
float decode_extremum(float code, out int layer, out float offset_s) {
  uint bits = floatBitsToUint(abs(code));
  layer = int(bits >> 23) - 127;
  offset_s = uintBitsToFloat((bits & 0x007FFFFFu) | 0x3F800000u) - 1.5;
  return code < 0.0 ? -1.0 : 1.0;
}
