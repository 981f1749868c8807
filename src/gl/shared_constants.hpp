// The constants that C++ and the shaders share (shaders/common/constants.h),
// as glsurf::shader::kListWidth and so on: one definition for both sides.
#pragma once

namespace glsurf::shader {
#include "common/constants.h"
}  // namespace glsurf::shader
