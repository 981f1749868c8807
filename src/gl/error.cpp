#include "gl/error.hpp"

#include <algorithm>
#include <atomic>

#include "gl/gl.hpp"

namespace glsurf {

void detail::contract_failure(const char* function, const char* condition, const std::string& message) {
  throw std::logic_error(std::string(function) + ": " + message + " (violated: " + condition + ")");
}

}  // namespace glsurf

namespace glsurf::gl {

const char* gl_enum_name(unsigned value) {
  switch (value) {
    case GL_NO_ERROR:
      return "GL_NO_ERROR";
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_FRAMEBUFFER_UNDEFINED:
      return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT:
      return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
      return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER:
      return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER:
      return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
    case GL_FRAMEBUFFER_UNSUPPORTED:
      return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE:
      return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS:
      return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
    case GL_R8:
      return "GL_R8";
    case GL_R8UI:
      return "GL_R8UI";
    case GL_R32UI:
      return "GL_R32UI";
    case GL_RG32UI:
      return "GL_RG32UI";
    case GL_RGBA32UI:
      return "GL_RGBA32UI";
    case GL_R32F:
      return "GL_R32F";
    case GL_RG32F:
      return "GL_RG32F";
    case GL_RGBA32F:
      return "GL_RGBA32F";
    case GL_DEPTH_COMPONENT32F:
      return "GL_DEPTH_COMPONENT32F";
    case GL_RGBA8:
      return "GL_RGBA8";
    default:
      return "unknown GL enum";
  }
}

namespace {
std::atomic<bool> simulated_loss{false};
}  // namespace

void simulate_context_loss(bool lost) { simulated_loss = lost; }

void check_context_not_lost(const char* what) {
  GLenum status = GL_NO_ERROR;
  if (simulated_loss) {
    status = GL_GUILTY_CONTEXT_RESET_ARB;
  } else if (glGetGraphicsResetStatus) {  // OpenGL 4.5
    status = glGetGraphicsResetStatus();
  } else if (glGetGraphicsResetStatusARB) {
    status = glGetGraphicsResetStatusARB();
  }
  if (status == GL_NO_ERROR) return;
  const char* cause = status == GL_GUILTY_CONTEXT_RESET_ARB
                          ? "caused by this context (a draw too long for the "
                            "driver's watchdog?)"
                      : status == GL_INNOCENT_CONTEXT_RESET_ARB ? "caused by another program"
                                                                : "cause unknown";
  throw Error(std::string(what) + ": the GPU was reset and the OpenGL context is lost (" + cause +
              "); nothing of this run's GPU work can be trusted: run it again");
}

void require_current_context(const std::string& what) {
  if (max_texture_size() == 0) throw Error("cannot create " + what + ": no current OpenGL context");
}

int max_texture_size() {
  GLint size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &size);
  // GLSURF_MAX_TEXTURE_SIZE: a smaller limit, as a laptop's or a GLES
  // device's, to see tiling at work (tests). Read once.
  static const int cap = [] {
    const char* text = std::getenv("GLSURF_MAX_TEXTURE_SIZE");
    if (!text || !*text) return 0;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != 0 || value < 64 || value > (1 << 20))
      throw Error(std::string("GLSURF_MAX_TEXTURE_SIZE must be a whole number from 64 on, not '") + text +
                  "'");
    return static_cast<int>(value);
  }();
  return size > 0 && cap > 0 ? std::min<int>(size, cap) : size;
}

double available_video_memory() {
  check_gl_errors("before the video memory query");  // an error below is the query's own
  if (GLEW_NVX_gpu_memory_info) {
    GLint kib = 0;
    glGetIntegerv(GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX, &kib);
    if (glGetError() == GL_NO_ERROR && kib > 0) return kib * 1024.0;
  }
  if (GLEW_ATI_meminfo) {
    GLint pool[4] = {0, 0, 0, 0};  // free KiB, largest free block, auxiliary free, largest auxiliary
    glGetIntegerv(GL_TEXTURE_FREE_MEMORY_ATI, pool);
    if (glGetError() == GL_NO_ERROR && pool[0] > 0) return pool[0] * 1024.0;
  }
  return -1;
}

int max_buffer_texels() {
  GLint size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &size);
  return size;
}

int max_buffer_texels(int cap) { return cap >= 0 ? std::min(cap, max_buffer_texels()) : max_buffer_texels(); }

std::string texture_size_problem(int width, int height, const std::string& what, long long need_width,
                                 long long need_height) {
  const int max_size = max_texture_size();
  if (need_width <= max_size && need_height <= max_size) return "";
  return "image of " + std::to_string(width) + "x" + std::to_string(height) + " is too large: its " + what +
         " needs " + std::to_string(need_width) + "x" + std::to_string(need_height) +
         " texels and the driver allows " + std::to_string(max_size) + " per side";
}

void finish() { glFinish(); }

void check_gl_errors(const std::string& where) {
  std::string found;
  // A lost context can return the same error forever; bound the loop.
  for (int i = 0; i < 16; ++i) {
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    if (!found.empty()) found += ", ";
    found += gl_enum_name(e);
  }
  if (!found.empty()) throw Error("OpenGL error after " + where + ": " + found);
}

}  // namespace glsurf::gl
