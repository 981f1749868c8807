// Errors in three tiers:
//   * environment failures (no context, GL too old, shader errors, incomplete
//     framebuffer, unreadable file) throw glsurf::Error with one readable line
//     (plus the driver's log where there is one);
//   * programmer mistakes (reading and writing one texture in a pass, size
//     mismatches) fail GLSURF_EXPECTS, which throws std::logic_error naming the
//     function;
//   * the GL error queue is drained by check_gl_errors() after every pass in
//     test builds (PassRunner::set_check_every_pass) and at stage boundaries.
#pragma once

#include <string>

#include "glsurf/types.hpp"

namespace glsurf {

namespace detail {
[[noreturn]] void contract_failure(const char* function, const char* condition, const std::string& message);
}  // namespace detail

}  // namespace glsurf

#define GLSURF_EXPECTS(condition, message)                                                 \
  do {                                                                                     \
    if (!(condition)) ::glsurf::detail::contract_failure(__func__, #condition, (message)); \
  } while (false)

namespace glsurf::gl {

// Drains the GL error queue; throws glsurf::Error naming `where` and every
// error found. Cheap when the queue is empty.
void check_gl_errors(const std::string& where);

// Name of a GL enum we report in messages (errors, framebuffer status, formats).
const char* gl_enum_name(unsigned value);

// Throws glsurf::Error "cannot create WHAT: no current OpenGL context" when
// no context is current (GL_MAX_TEXTURE_SIZE reads 0): GL calls would then do
// nothing, and the failure would surface later under another name.
void require_current_context(const std::string& what);

// Throws glsurf::Error "WHAT: the GPU was reset and the OpenGL context is
// lost ..." when the driver reports a reset of the current context
// (glGetGraphicsResetStatus, GL_ARB_robustness or OpenGL 4.5; contexts made
// with reset notification, gl::Context::headless asks for it). Results read
// after a reset are garbage, so every stage boundary asks: the detector and
// matcher before and after their work. A driver without robustness never
// reports one.
void check_context_not_lost(const char* what);
// For tests: makes check_context_not_lost report a reset (guilty) until cleared.
void simulate_context_loss(bool lost);

// GL_MAX_TEXTURE_SIZE (or GLSURF_MAX_TEXTURE_SIZE where that is smaller:
// tests) and GL_MAX_TEXTURE_BUFFER_SIZE of the current context.
int max_texture_size();
int max_buffer_texels();
// The video memory the driver says is free, in bytes (GL_NVX_gpu_memory_info
// on NVIDIA, GL_ATI_meminfo's texture pool on AMD), or -1 where it says
// nothing (Mesa's Intel and software drivers): the default memory budget of
// tiled detection on a GPU.
double available_video_memory();
// GL_MAX_TEXTURE_BUFFER_SIZE, or `cap` when that is smaller (cap < 0: no cap;
// the stages' limit_buffer_texels hooks for tests).
int max_buffer_texels(int cap);
// "image of WxH is too large: its WHAT needs AxB texels and the driver allows
// N per side" when a texture of need_width x need_height texels made for a
// width x height image exceeds GL_MAX_TEXTURE_SIZE; "" when it fits.
std::string texture_size_problem(int width, int height, const std::string& what, long long need_width,
                                 long long need_height);

// Waits until the GPU has finished all work (for wall-clock timing).
void finish();

}  // namespace glsurf::gl
