#include "gl/timer.hpp"

#include <cstdint>
#include <utility>

#include "gl/error.hpp"
#include "gl/gl.hpp"

namespace glsurf::gl {

GpuTimer::GpuTimer() { glGenQueries(1, &query_); }

GpuTimer::GpuTimer(GpuTimer&& other) noexcept
    : query_(std::exchange(other.query_, 0)), running_(other.running_) {}

GpuTimer& GpuTimer::operator=(GpuTimer&& other) noexcept {
  if (this != &other) {
    if (query_) glDeleteQueries(1, &query_);
    query_ = std::exchange(other.query_, 0);
    running_ = other.running_;
  }
  return *this;
}

GpuTimer::~GpuTimer() {
  if (query_) glDeleteQueries(1, &query_);
}

void GpuTimer::begin() {
  GLSURF_EXPECTS(!running_, "timer already running");
  glBeginQuery(GL_TIME_ELAPSED, query_);
  running_ = true;
}

void GpuTimer::end() {
  GLSURF_EXPECTS(running_, "timer not running");
  glEndQuery(GL_TIME_ELAPSED);
  running_ = false;
}

double GpuTimer::milliseconds() const {
  GLSURF_EXPECTS(!running_, "timer still running");
  GLuint64 ns = 0;
  glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);  // waits for the GPU
  check_gl_errors("reading a GPU timer");
  return static_cast<double>(ns) * 1e-6;
}

}  // namespace glsurf::gl
