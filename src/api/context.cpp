// The public Context over the library's gl::Context (headless EGL only).
#include "glsurf/context.hpp"

#include "gl/context.hpp"
#include "glsurf/types.hpp"

namespace glsurf {

Context::Context(std::unique_ptr<gl::Context> context) : context_(std::move(context)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

Context Context::headless() { return Context(std::make_unique<gl::Context>(gl::Context::headless())); }

ContextInfo Context::info() const {
  const gl::ContextInfo& info = native().info();
  ContextInfo out;
  out.vendor = info.vendor;
  out.renderer = info.renderer;
  out.version = info.version;
  out.glsl_version = info.glsl_version;
  out.platform = gl::to_string(info.path);
  out.max_texture_size = info.max_texture_size;
  out.software = info.software();
  return out;
}

void Context::make_current() const { native().make_current(); }
void Context::release_current() const { native().release_current(); }

const gl::Context& Context::native() const {
  if (!context_) throw Error("use of a moved-from glsurf::Context");
  return *context_;
}

}  // namespace glsurf
