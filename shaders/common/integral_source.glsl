// common/integral_source.glsl — the unsigned-integer operand of an integral pass.
//
// Declares `u_source`, the type VALUE of an entry, and `VALUE source_at(ivec2
// p)`, which returns the entry at p, or 0 outside the texture (the implicit
// zero padding that lets the scans handle odd sizes and the prescans' extra
// output).
//
// Variant SOURCE_UNORM8: u_source is the uploaded R8 image (normalised, value =
// byte / 255); the byte is recovered exactly as round(value * 255).
// Variant SOURCE_PACKED8: the image packed four pixels to an RGBA8 texel
// (surf/integral.hpp), entries along x: pixel x is channel x & 3 of texel x >> 2
// (rows only; zero past the padded width).
// Variant VECTOR: an entry is a whole RGBA32UI texel (uvec4), four columns of
// the integral image scanned side by side (integral.hpp).
// Otherwise u_source is an unsigned texture whose first channel is read: R32UI,
// or the RGBA32UI up-sweep levels of scans with RADIX <= 4 (scan_up.frag).

#if defined(SOURCE_UNORM8) || defined(SOURCE_PACKED8)
uniform sampler2D u_source;
#else
uniform usampler2D u_source;
#endif

#ifdef VECTOR
#define VALUE uvec4
#else
#define VALUE uint
#endif

VALUE source_at(ivec2 p) {
#ifdef SOURCE_PACKED8
  ivec2 size = textureSize(u_source, 0) * ivec2(4, 1);
#else
  ivec2 size = textureSize(u_source, 0);
#endif
  if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size))) return VALUE(0u);
#if defined(SOURCE_PACKED8)
  return uint(texelFetch(u_source, ivec2(p.x >> 2, p.y), 0)[p.x & 3] * 255.0 + 0.5);
#elif defined(SOURCE_UNORM8)
  return uint(texelFetch(u_source, p, 0).r * 255.0 + 0.5);
#elif defined(VECTOR)
  return texelFetch(u_source, p, 0);
#else
  return texelFetch(u_source, p, 0).r;
#endif
}
