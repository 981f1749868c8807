// Window contexts by GLFW: gl::Context::window and glfw_window, in the
// glsurf_window library that only programs which open windows link.
#include "gl/context.hpp"
#include "gl/error.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <string>

namespace glsurf::gl {

namespace {

// glfwTerminate closes every window: count the windows, so that closing one
// never closes another.
int& glfw_users() {
  static int users = 0;
  return users;
}

class GlfwWindow final : public Window {
 public:
  explicit GlfwWindow(GLFWwindow* window) : window_(window) {}
  ~GlfwWindow() override {
    glfwDestroyWindow(window_);
    if (--glfw_users() == 0) glfwTerminate();
  }
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;

  void make_current() const override { glfwMakeContextCurrent(window_); }
  void release_if_current() const override {
    if (glfwGetCurrentContext() == window_) glfwMakeContextCurrent(nullptr);
  }
  bool is_current() const override { return glfwGetCurrentContext() == window_; }
  void swap_buffers() const override { glfwSwapBuffers(window_); }
  void framebuffer_size(int& width, int& height) const override {
    glfwGetFramebufferSize(window_, &width, &height);
  }
  void* handle() const override { return window_; }

 private:
  GLFWwindow* window_;
};

}  // namespace

Context Context::window(int width, int height, const std::string& title, bool visible) {
  if (!glfwInit()) {
    const char* desc = nullptr;
    glfwGetError(&desc);
    std::string why = desc ? desc : "glfwInit failed";
    while (!why.empty() && why.back() == ' ') why.pop_back();  // X11's "Failed to open display "
    throw Error("no window system for a GLFW window: " + why);
  }
  ++glfw_users();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window) {
    const char* desc = nullptr;
    glfwGetError(&desc);
    if (--glfw_users() == 0) glfwTerminate();
    throw Error(std::string("could not open an OpenGL 3.3 core window: ") +
                (desc ? desc : "unknown GLFW error"));
  }
  return from_window(std::make_shared<GlfwWindow>(window), ContextPath::Glfw);
}

GLFWwindow* Context::glfw_window() const {
  const Window* w = window();
  return w ? static_cast<GLFWwindow*>(w->handle()) : nullptr;
}

}  // namespace glsurf::gl
