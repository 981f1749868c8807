// common/constants.h — the constants that the C++ stages and the shaders
// share, written in the part of C++ and GLSL where `const int` and
// `const float` declarations read alike. Shaders splice it in
// (#include "common/constants.h"); C++ includes it through
// gl/shared_constants.hpp, as glsurf::shader::kListWidth and so on.

// Width of the point list and of every per-keypoint texture (common/blocks.glsl).
const int kListWidth = 1024;
// Queries per fragment of the matcher's reductions (matcher/two_nearest.frag,
// matcher/first_two.frag): one output per query.
const int kMatchQueries = 8;
// Levels the HistoPyramid traversal can walk (compact/hp_traverse.frag):
// enough for 2^15 x 2^15 candidate atlases.
const int kMaxPyramidLevels = 16;
// The distance of "no candidate" in the matcher's two-nearest lists.
const float kNoCandidate = 1e30;
