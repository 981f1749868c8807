#include "app/view_keys.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace glsurf::app {

namespace {

void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action != GLFW_PRESS) return;
  Keys& k = *static_cast<Keys*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_SPACE:
      k.pause = !k.pause;
      break;
    case GLFW_KEY_N:
      k.next = true;
      break;
    case GLFW_KEY_P:
      k.previous = true;
      break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
      k.faster = true;
      break;  // + raises the threshold
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
      k.slower = true;
      break;
    case GLFW_KEY_U:
      k.upright = true;
      break;
    case GLFW_KEY_S:
      k.screenshot = true;
      break;
    case GLFW_KEY_H:
      k.help = !k.help;
      break;
    case GLFW_KEY_M:
      k.match = !k.match;
      break;
    case GLFW_KEY_R:
      k.reference = true;
      break;
    case GLFW_KEY_K:
      k.strongest = true;
      break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE:
      k.quit = true;
      break;
    default:
      break;
  }
}

}  // namespace

void gather_keys(GLFWwindow* window, Keys& keys) {
  glfwSetWindowUserPointer(window, &keys);
  glfwSetKeyCallback(window, on_key);
}

}  // namespace glsurf::app
