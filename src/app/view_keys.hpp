// glsurf view's keys: gathered by GLFW's key callback, handled once per frame.
#pragma once

struct GLFWwindow;

namespace glsurf::app {

struct Keys {
  bool pause = false, next = false, previous = false, faster = false, slower = false, upright = false,
       screenshot = false, help = false, quit = false, match = false, reference = false, strongest = false;
};

// From now on the window's key presses set or toggle `keys` (space pause,
// n/p next/previous, +/- threshold, u upright, s screenshot, h help, m match
// mode, r reference, k the strongest 100/300/1000/all, q/Esc quit), which
// must outlive the window.
void gather_keys(GLFWwindow* window, Keys& keys);

}  // namespace glsurf::app
