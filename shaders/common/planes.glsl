// common/planes.glsl — the Hessian's maps, det(H) and trace (surf/hessian.hpp),
// are 2-D array textures of four planes: sample (x, y) of an octave's grid
// lies in texel (x >> 2, y) of plane x & 3, and a texel's four channels are
// its group's four layers. Each fragment of the Hessian passes computes four
// neighbouring samples and writes one to each plane. A map's buffer copy
// (gl::Texture::copy_rows) holds the planes one after another, each in rows
// of ceil(grid.x / 4) texels.
//
//   vec4 plane_texel(sampler2DArray s, ivec2 p)  sample p of a map
//   PLANES_SAMPLER, PLANES_FETCH(s, p, grid)     a map read either way: with
//       LINEAR_FETCH (common/linear_fetch.glsl) its buffer copy, otherwise
//       the array itself; grid is the octave's sample grid

#ifndef PLANES_GLSL
#define PLANES_GLSL
vec4 plane_texel(sampler2DArray s, ivec2 p) { return texelFetch(s, ivec3(p.x >> 2, p.y, p.x & 3), 0); }
#ifdef LINEAR_FETCH
#define PLANES_SAMPLER samplerBuffer
#define PLANES_FETCH(s, p, grid) \
  texelFetch(s, (((p).x & 3) * (grid).y + (p).y) * (((grid).x + 3) >> 2) + ((p).x >> 2))
#else
#define PLANES_SAMPLER sampler2DArray
#define PLANES_FETCH(s, p, grid) plane_texel(s, p)
#endif
#endif
