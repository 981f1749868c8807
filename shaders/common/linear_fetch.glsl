// common/linear_fetch.glsl — one way to declare and read the large unsigned
// inputs of a pass either as 2-D textures or, with LINEAR_FETCH defined, as
// buffer textures holding the same texels row by row (gl::Texture::buffer,
// copy_rows), whose linear look-ups cost llvmpipe about a third less. The
// C++ side picks the buffer kind where the driver's buffer textures hold the
// data, the 2-D one otherwise.
//   USAMPLER, SAMPLER   the sampler types to declare (unsigned, float)
//   FETCH(s, p, width)  texel p (ivec2) of s, whose rows are `width` texels
//   FETCH_INDEX(s, i)   texel i of s in the 1024-wide layout of
//                       common/blocks.glsl (included before this file)

#ifndef LINEAR_FETCH_GLSL
#define LINEAR_FETCH_GLSL
#ifdef LINEAR_FETCH
#define USAMPLER usamplerBuffer
#define SAMPLER samplerBuffer
#define FETCH(s, p, width) texelFetch(s, (p).y * (width) + (p).x)
#define FETCH_INDEX(s, i) texelFetch(s, i)
#else
#define USAMPLER usampler2D
#define SAMPLER sampler2D
#define FETCH(s, p, width) texelFetch(s, p, 0)
#define FETCH_INDEX(s, i) texelFetch(s, texel_of(i), 0)
#endif
#endif
