#include "gl/context.hpp"

#include "gl/error.hpp"
#include "gl/gl.hpp"

#define EGL_NO_X11
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace glsurf::gl {

const char* to_string(ContextPath path) {
  switch (path) {
    case ContextPath::EglDevice:
      return "EGL device platform (headless)";
    case ContextPath::EglSurfaceless:
      return "EGL Mesa surfaceless platform (headless)";
    case ContextPath::Glfw:
      return "GLFW window";
  }
  return "?";
}

namespace {

// eglGetPlatformDisplay returns one EGLDisplay per device and eglTerminate is
// not reference-counted: count the users so that destroying one Context never
// pulls the ground from under another.
std::map<EGLDisplay, int>& display_users() {
  static std::map<EGLDisplay, int> users;
  return users;
}

void release_display(EGLDisplay display) {
  if (--display_users()[display] == 0) {
    display_users().erase(display);
    eglTerminate(display);
  }
}

}  // namespace

struct Context::Impl {
  ContextPath path = ContextPath::EglDevice;
  ContextInfo info;
  EGLDisplay display = EGL_NO_DISPLAY;  // counted in display_users() while set
  EGLContext context = EGL_NO_CONTEXT;
  std::shared_ptr<const Window> window;

  ~Impl() {
    if (display != EGL_NO_DISPLAY) {
      if (eglGetCurrentContext() == context) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      }
      if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
      release_display(display);
    }
  }
};

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    default:
      return "EGL error " + std::to_string(e);
  }
}

// Loads the GL entry points into the current context and checks that it is
// OpenGL 3.3 or newer with everything glsurf calls. Throws on failure.
void load_and_check_gl(ContextPath path) {
  glewExperimental = GL_TRUE;
  const GLenum r = glewInit();
  // On an EGL context (ours, or GLFW's on Wayland) GLEW, built for GLX, loads
  // the core functions and then fails to find an X display for its GLX
  // extensions; that is success here: the entry points are checked below.
  (void)path;
  const bool ok = r == GLEW_OK || r == GLEW_ERROR_NO_GLX_DISPLAY;
  if (!ok) {
    throw Error(std::string("GLEW could not load OpenGL entry points: ") +
                reinterpret_cast<const char*>(glewGetErrorString(r)));
  }
  glGetError();  // glewInit may leave GL_INVALID_ENUM behind in core profiles

  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  if (major * 10 + minor < 33) {
    const char* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    throw Error("OpenGL 3.3 is required, the driver offers " + std::string(v ? v : "an unknown version"));
  }
  struct Entry {
    const void* fn;
    const char* name;
  };
  const Entry needed[] = {
      {reinterpret_cast<const void*>(glGenFramebuffers), "glGenFramebuffers"},
      {reinterpret_cast<const void*>(glFramebufferTexture2D), "glFramebufferTexture2D"},
      {reinterpret_cast<const void*>(glCheckFramebufferStatus), "glCheckFramebufferStatus"},
      {reinterpret_cast<const void*>(glDrawBuffers), "glDrawBuffers"},
      {reinterpret_cast<const void*>(glGenVertexArrays), "glGenVertexArrays"},
      {reinterpret_cast<const void*>(glBindVertexArray), "glBindVertexArray"},
      {reinterpret_cast<const void*>(glCreateShader), "glCreateShader"},
      {reinterpret_cast<const void*>(glLinkProgram), "glLinkProgram"},
      {reinterpret_cast<const void*>(glUniform1ui), "glUniform1ui"},
      {reinterpret_cast<const void*>(glUniform2i), "glUniform2i"},
      {reinterpret_cast<const void*>(glClearBufferuiv), "glClearBufferuiv"},
      {reinterpret_cast<const void*>(glGenQueries), "glGenQueries"},
      {reinterpret_cast<const void*>(glGetQueryObjectui64v), "glGetQueryObjectui64v"},
      {reinterpret_cast<const void*>(glGetStringi), "glGetStringi"},
      {reinterpret_cast<const void*>(glActiveTexture), "glActiveTexture"},
  };
  for (const Entry& e : needed) {
    if (!e.fn) throw Error(std::string("OpenGL entry point missing: ") + e.name);
  }
}

ContextInfo query_info(ContextPath path) {
  auto str = [](GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return std::string(s ? s : "");
  };
  ContextInfo info;
  info.path = path;
  info.vendor = str(GL_VENDOR);
  info.renderer = str(GL_RENDERER);
  info.version = str(GL_VERSION);
  info.glsl_version = str(GL_SHADING_LANGUAGE_VERSION);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info.max_texture_size);
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &info.max_draw_buffers);
  glGetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &info.max_color_attachments);
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &info.max_texture_units);
  GLint bits = 0;  // a timer with zero counter bits cannot time anything
  glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
  info.timer_query = bits > 0;
  if (GLEW_ARB_robustness || GLEW_VERSION_4_5) {
    GLint strategy = 0;
    glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY_ARB, &strategy);
    info.reset_notification = strategy == GL_LOSE_CONTEXT_ON_RESET_ARB;
  }
  if (info.timer_query) {
    // Mesa 22.3's llvmpipe answers the first GL_TIME_ELAPSED query around
    // real work in a context with a bogus huge value (the time since boot);
    // spend it here on a 1x1 clear.
    GLuint query = 0, texture = 0, framebuffer = 0;
    GLuint64 ns = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, 1, 1, 0, GL_RED, GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    glGenQueries(1, &query);
    glBeginQuery(GL_TIME_ELAPSED, query);
    glClear(GL_COLOR_BUFFER_BIT);
    glEndQuery(GL_TIME_ELAPSED);
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteQueries(1, &query);
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteTextures(1, &texture);
  }
  check_gl_errors("reading context limits");
  return info;
}

// Tries to create a 3.3 core context on an initialised EGL display and make it
// current without a surface. Returns the context or EGL_NO_CONTEXT with `why`.
EGLContext create_egl_context(EGLDisplay display, std::string& why) {
  const char* ext = eglQueryString(display, EGL_EXTENSIONS);
  if (!has_extension(ext, "EGL_KHR_surfaceless_context")) {
    why = "display lacks EGL_KHR_surfaceless_context";
    return EGL_NO_CONTEXT;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    why = "eglBindAPI(EGL_OPENGL_API) failed: " + egl_error_name(eglGetError());
    return EGL_NO_CONTEXT;
  }
  EGLConfig config = nullptr;
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                   EGL_NONE};
  EGLint count = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count == 0) {
    if (!has_extension(ext, "EGL_KHR_no_config_context")) {
      why = "no EGL config for desktop OpenGL";
      return EGL_NO_CONTEXT;
    }
    config = EGL_NO_CONFIG_KHR;
  }
  // A reset (a draw that ran into the display driver's watchdog, another
  // program's fault) should be reported, not leave garbage: lose the context
  // on reset where the driver can tell (check_context_not_lost), else a plain
  // context.
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    3,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    3,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT,
                                    EGL_LOSE_CONTEXT_ON_RESET_EXT,
                                    EGL_NONE};
  EGLContext context = EGL_NO_CONTEXT;
  if (has_extension(ext, "EGL_EXT_create_context_robustness"))
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) {
    EGLint plain[std::size(context_attribs)];
    std::copy(std::begin(context_attribs), std::end(context_attribs), plain);
    plain[6] = EGL_NONE;
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, plain);
  }
  if (context == EGL_NO_CONTEXT) {
    why = "no OpenGL 3.3 core context (" + egl_error_name(eglGetError()) + ")";
    return EGL_NO_CONTEXT;
  }
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    why = "eglMakeCurrent failed (" + egl_error_name(eglGetError()) + ")";
    eglDestroyContext(display, context);
    return EGL_NO_CONTEXT;
  }
  return context;
}

}  // namespace

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

ContextPath Context::path() const { return impl_->path; }
const ContextInfo& Context::info() const { return impl_->info; }
const Window* Context::window() const { return impl_->window.get(); }

void Context::swap_buffers() const {
  GLSURF_EXPECTS(impl_ && impl_->window, "swap_buffers needs a window context");
  impl_->window->swap_buffers();
}

void Context::framebuffer_size(int& width, int& height) const {
  GLSURF_EXPECTS(impl_ && impl_->window, "framebuffer_size needs a window context");
  impl_->window->framebuffer_size(width, height);
}

void Context::make_current() const {
  GLSURF_EXPECTS(impl_ != nullptr, "use of a moved-from Context");
  if (impl_->window) {
    impl_->window->make_current();
  } else if (!eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, impl_->context)) {
    throw Error("cannot make the OpenGL context current: " + egl_error_name(eglGetError()));
  }
}

void Context::release_current() const {
  GLSURF_EXPECTS(impl_ != nullptr, "use of a moved-from Context");
  if (impl_->window) {
    impl_->window->release_if_current();
  } else if (eglGetCurrentContext() == impl_->context &&
             !eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT)) {
    throw Error("cannot release the OpenGL context: " + egl_error_name(eglGetError()));
  }
}

ContextTag Context::tag() const {
  GLSURF_EXPECTS(impl_ != nullptr, "use of a moved-from Context");
  ContextTag t;
  t.window_ = impl_->window;
  t.windowed_ = impl_->window != nullptr;
  t.egl_context_ = impl_->window ? nullptr : impl_->context;
  return t;
}

bool ContextTag::is_current() const {
  // A tag outliving its window's context reads as not current.
  if (windowed_) {
    const std::shared_ptr<const Window> window = window_.lock();
    return window && window->is_current();
  }
  return egl_context_ != nullptr && eglGetCurrentContext() == egl_context_;
}

void ContextTag::require_current(const char* what) const {
  if (is_current()) return check_context_not_lost(what);
  throw Error(
      std::string(what) +
      ": its OpenGL context is not current on this thread (gl::Context::make_current() makes it current; "
      "another thread that has it current must release it first, gl::Context::release_current())");
}

Context Context::headless() {
  // GLSURF_EGL_PLATFORM=device or =surfaceless restricts the search to one path.
  const char* only_env = std::getenv("GLSURF_EGL_PLATFORM");
  const std::string only = only_env ? only_env : "";
  if (!only.empty() && only != "device" && only != "surfaceless") {
    throw Error("GLSURF_EGL_PLATFORM must be 'device' or 'surfaceless', not '" + only + "'");
  }
  const bool use_device = only.empty() || only == "device";
  const bool use_surfaceless = only.empty() || only == "surfaceless";
  std::vector<std::string> tried;
  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));

  // Finishes a context on an initialised display, or records why it could not.
  auto try_display = [&](EGLDisplay display, ContextPath path, const std::string& label,
                         const std::string& device) -> std::unique_ptr<Impl> {
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
      tried.push_back(label + ": eglInitialize failed (" + egl_error_name(eglGetError()) + ")");
      return nullptr;
    }
    ++display_users()[display];
    std::string why;
    EGLContext context = create_egl_context(display, why);
    if (context == EGL_NO_CONTEXT) {
      tried.push_back(label + ": " + why);
      release_display(display);
      return nullptr;
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->display = display;
    impl->context = context;
    try {
      load_and_check_gl(path);
      impl->info = query_info(path);
      impl->info.egl_device = device;
    } catch (const Error& e) {
      tried.push_back(label + ": " + e.what());
      return nullptr;  // ~Impl releases the context and the display
    }
    return impl;
  };

  if (!get_platform_display) {
    tried.push_back("EGL: eglGetPlatformDisplayEXT unavailable");
  } else {
    if (!use_device) {
      tried.push_back("EGL device platform: skipped (GLSURF_EGL_PLATFORM)");
    } else if (has_extension(client_ext, "EGL_EXT_platform_device")) {
      auto query_devices =
          reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
      auto query_device_string =
          reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
      EGLDeviceEXT devices[16];
      EGLint n = 0;
      if (!query_devices || !query_devices(16, devices, &n) || n == 0) {
        tried.push_back("EGL device platform: no devices");
      }
      for (EGLint i = 0; i < n; ++i) {
        std::string device;
        if (query_device_string) {
          const char* s = query_device_string(devices[i], EGL_EXTENSIONS);
          device = s ? s : "";
        }
        EGLDisplay display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        const std::string label =
            "EGL device " + std::to_string(i) + (device.empty() ? "" : " [" + device + "]");
        if (auto impl = try_display(display, ContextPath::EglDevice, label, device)) {
          return Context(std::move(impl));
        }
      }
    } else {
      tried.push_back("EGL device platform: EGL_EXT_platform_device not offered");
    }
    if (!use_surfaceless) {
      tried.push_back("EGL Mesa surfaceless: skipped (GLSURF_EGL_PLATFORM)");
    } else if (has_extension(client_ext, "EGL_MESA_platform_surfaceless")) {
      EGLDisplay display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
      if (auto impl = try_display(display, ContextPath::EglSurfaceless, "EGL Mesa surfaceless", "")) {
        return Context(std::move(impl));
      }
    } else {
      tried.push_back("EGL Mesa surfaceless: EGL_MESA_platform_surfaceless not offered");
    }
  }
  std::string msg = "no OpenGL 3.3 context could be created headless; tried ";
  for (size_t i = 0; i < tried.size(); ++i) msg += (i ? "; " : "") + tried[i];
  msg +=
      ". Nothing worked: without a GPU driver, Mesa's software renderer needs the "
      "Debian packages libegl-mesa0 and libgl1-mesa-dri";
  throw Error(msg);
}

Context Context::from_window(std::shared_ptr<const Window> window, ContextPath path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->window = std::move(window);
  impl->window->make_current();
  load_and_check_gl(path);
  impl->info = query_info(path);
  return Context(std::move(impl));
}

}  // namespace glsurf::gl
