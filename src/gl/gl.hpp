// The one place that includes the OpenGL headers (GLEW first, as it must be).
#pragma once

#include <GL/glew.h>
