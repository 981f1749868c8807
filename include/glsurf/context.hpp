// An OpenGL 3.3 context without a window, for the GPU detector and matcher.
//
//   glsurf::Context context = glsurf::Context::headless();
//   glsurf::Detector detector = glsurf::Detector::gpu(context);
//
// A context is current on one thread at a time. headless() and
// Detector::gpu / Matcher::gpu make it current on the calling thread; every
// later GPU call needs it current on its thread and throws glsurf::Error
// otherwise. To move work to another thread, release_current() on the one
// that used it last and make_current() on the new one.
// A Context must outlive the Detectors and Matchers made on it: their GPU
// objects live in it.
#pragma once

#include <memory>
#include <string>

namespace glsurf {

namespace gl {
class Context;
}

// What the driver is, and the limits glsurf depends on.
struct ContextInfo {
  std::string vendor, renderer, version, glsl_version;
  std::string platform;      // how it was made: "EGL device", "EGL surfaceless" ...
  int max_texture_size = 0;  // the largest image side the GPU stages take is about this
  bool software = false;     // Mesa's llvmpipe or softpipe: the GPU stages run on the CPU
};

class Context {
 public:
  // Tries EGL's device platform (every GPU, Mesa's llvmpipe without one),
  // then the surfaceless platform. Throws glsurf::Error naming what was tried
  // when neither gives OpenGL 3.3 (e.g. no driver: install libegl-mesa0 and
  // libgl1-mesa-dri for the software renderer).
  static Context headless();

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();

  ContextInfo info() const;
  void make_current() const;
  void release_current() const;

  // The library's own context (for code built with glsurf's internals).
  const gl::Context& native() const;

 private:
  explicit Context(std::unique_ptr<gl::Context> context);
  std::unique_ptr<gl::Context> context_;
};

}  // namespace glsurf
