// An OpenGL 3.3 core context, headless (EGL) or in a window (GLFW), behind one
// interface. Everything else in glsurf takes the context as given and never
// asks how it was made.
//
//   Context ctx = Context::headless();        // EGL device, else Mesa surfaceless
//   Context win = Context::window(800, 600, "glsurf");
//
// The library links no window system: a window context is a Window (below)
// that the glsurf_window library makes with GLFW (window/glfw_context.cpp,
// which defines Context::window and glfw_window); headless programs never
// link it. Creation throws glsurf::Error with one line that says what was
// tried and why each path failed. The context is current on the creating
// thread.
#pragma once

#include <memory>
#include <string>

struct GLFWwindow;

namespace glsurf::gl {

enum class ContextPath { EglDevice, EglSurfaceless, Glfw };

const char* to_string(ContextPath path);

struct ContextInfo {
  ContextPath path = ContextPath::EglDevice;
  std::string vendor, renderer, version, glsl_version;
  std::string egl_device;    // EGL device extensions / name where known
  int max_texture_size = 0;  // GL_MAX_TEXTURE_SIZE
  int max_draw_buffers = 0;  // GL_MAX_DRAW_BUFFERS (multiple render targets)
  int max_color_attachments = 0;
  int max_texture_units = 0;  // GL_MAX_TEXTURE_IMAGE_UNITS (fragment stage)
  bool timer_query = false;   // GL_TIME_ELAPSED queries usable
  // The driver reports a GPU reset (check_context_not_lost): robustness with
  // GL_LOSE_CONTEXT_ON_RESET.
  bool reset_notification = false;
  // Mesa's llvmpipe or softpipe: the "GPU" is the CPU, and llvmpipe's timer
  // queries under-read some passes (docs/notes/llvmpipe.md, "Timer queries").
  bool software() const {
    return renderer.find("llvmpipe") != std::string::npos || renderer.find("softpipe") != std::string::npos;
  }
};

class Context;

// A window system's side of a window context: its own calls to make the
// context current, show it, and measure it.
class Window {
 public:
  virtual ~Window() = default;
  virtual void make_current() const = 0;
  virtual void release_if_current() const = 0;
  virtual bool is_current() const = 0;
  virtual void swap_buffers() const = 0;
  virtual void framebuffer_size(int& width, int& height) const = 0;
  virtual void* handle() const = 0;  // the window system's own (GLFWwindow*)
};

// Names a context without owning it. GpuDetector and GpuMatcher keep one and check
// at each call that their context is current on the calling thread: a call
// made while another context, or none, is current fails with GL errors or
// driver limits of 0 that do not say why, and can leave objects made in the
// wrong context behind. Current means current as the API that made the
// context (EGL or GLFW) reports it.
class ContextTag {
 public:
  ContextTag() = default;  // names no context: never current
  bool is_current() const;
  // Throws glsurf::Error "WHAT: its OpenGL context is not current on this
  // thread ..." unless is_current().
  void require_current(const char* what) const;

 private:
  friend class Context;
  std::weak_ptr<const Window> window_;  // a window context's, while it lives
  bool windowed_ = false;
  void* egl_context_ = nullptr;
};

class Context {
 public:
  static Context headless();
  // Defined in the glsurf_window library (GLFW).
  static Context window(int width, int height, const std::string& title, bool visible = true);
  // A context in `window`, made current, its GL entry points loaded and its
  // limits checked and read.
  static Context from_window(std::shared_ptr<const Window> window, ContextPath path);

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  ContextPath path() const;
  const ContextInfo& info() const;
  void make_current() const;
  // Leaves no context current on this thread, so that another thread can
  // make this one current (an EGL context is current on one thread at most).
  void release_current() const;
  ContextTag tag() const;
  GLFWwindow* glfw_window() const;  // nullptr for headless contexts; glsurf_window library
  const Window* window() const;     // nullptr for headless contexts
  // Window contexts only: show the back buffer, and the framebuffer's size.
  void swap_buffers() const;
  void framebuffer_size(int& width, int& height) const;

  struct Impl;

 private:
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace glsurf::gl
