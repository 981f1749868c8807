// glsurf info — the OpenGL context glsurf gets: vendor, renderer, version,
// how it was made, and the limits the pipeline depends on.
#include <cstdio>

#include "app/cli.hpp"
#include "gl/context.hpp"

namespace glsurf::app {

namespace {

int info(Args& args) {
  const bool window = args.flag("--window");
  args.finish();
  const gl::Context ctx =
      window ? gl::Context::window(320, 240, "glsurf info", false) : gl::Context::headless();
  const gl::ContextInfo& i = ctx.info();
  std::printf("context:          %s\n", gl::to_string(i.path));
  if (!i.egl_device.empty()) std::printf("EGL device:       %s\n", i.egl_device.c_str());
  std::printf("vendor:           %s\n", i.vendor.c_str());
  std::printf("renderer:         %s\n", i.renderer.c_str());
  std::printf("version:          %s\n", i.version.c_str());
  std::printf("GLSL:             %s\n", i.glsl_version.c_str());
  std::printf("max texture size: %d\n", i.max_texture_size);
  std::printf("draw buffers:     %d (colour attachments %d)\n", i.max_draw_buffers, i.max_color_attachments);
  std::printf("texture units:    %d (fragment)\n", i.max_texture_units);
  std::printf("timer queries:    %s\n", i.timer_query ? "yes" : "no");
  std::printf("GPU resets:       %s\n", i.reset_notification ? "reported (the context is lost on a reset)"
                                                             : "not reported by this driver");
  return 0;
}

OptionTable info_options() { return {flag("--window", "a GLFW window's context instead of headless EGL")}; }

}  // namespace

Command info_command() {
  return {"info",
          "",
          "OpenGL vendor, renderer, version, context path and limits",
          "The context is headless EGL (the device platform, else Mesa's surfaceless one) unless --window.",
          info_options,
          info,
          "info",
          {}};
}

}  // namespace glsurf::app
