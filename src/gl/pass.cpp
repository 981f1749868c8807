#include "gl/pass.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "gl/error.hpp"
#include "gl/gl.hpp"
#include "gl/state.hpp"

namespace glsurf::gl {

#ifndef NDEBUG
constexpr bool kCheckEveryPassDefault = true;
#else
constexpr bool kCheckEveryPassDefault = false;
#endif

PassRunner::PassRunner() : check_every_pass_(kCheckEveryPassDefault) {
  require_current_context("the pass runner");
  // GLSURF_MAX_DRAW_WORK: a smaller bound, to see the bands at work (tests).
  if (const char* limit = std::getenv("GLSURF_MAX_DRAW_WORK")) {
    char* end = nullptr;
    const long long value = std::strtoll(limit, &end, 10);
    if (end == limit || *end != 0 || value < 1)
      throw Error(std::string("GLSURF_MAX_DRAW_WORK must be a whole number from 1 on, not '") + limit + "'");
    max_draw_work_ = value;
  }
  glGenVertexArrays(1, &vao_);
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &max_units_);
  check_gl_errors("creating the pass runner");
}

PassRunner::PassRunner(PassRunner&& other) noexcept
    : vao_(std::exchange(other.vao_, 0)),
      max_units_(other.max_units_),
      check_every_pass_(other.check_every_pass_),
      passes_run_(other.passes_run_),
      draws_issued_(other.draws_issued_),
      max_draw_work_(other.max_draw_work_),
      profiling_(other.profiling_),
      finish_each_pass_(other.finish_each_pass_),
      queries_(std::move(other.queries_)),
      pending_(std::move(other.pending_)),
      settle_texture_(std::move(other.settle_texture_)),
      settle_target_(std::move(other.settle_target_)) {
  other.queries_.clear();
}

PassRunner& PassRunner::operator=(PassRunner&& other) noexcept {
  if (this != &other) {
    if (vao_) glDeleteVertexArrays(1, &vao_);
    vao_ = std::exchange(other.vao_, 0);
    max_units_ = other.max_units_;
    check_every_pass_ = other.check_every_pass_;
    passes_run_ = other.passes_run_;
    draws_issued_ = other.draws_issued_;
    max_draw_work_ = other.max_draw_work_;
    if (!queries_.empty()) glDeleteQueries(static_cast<GLsizei>(queries_.size()), queries_.data());
    profiling_ = other.profiling_;
    finish_each_pass_ = other.finish_each_pass_;
    queries_ = std::move(other.queries_);
    pending_ = std::move(other.pending_);
    other.queries_.clear();
    settle_target_ = std::move(other.settle_target_);
    settle_texture_ = std::move(other.settle_texture_);
  }
  return *this;
}

PassRunner::~PassRunner() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (!queries_.empty()) glDeleteQueries(static_cast<GLsizei>(queries_.size()), queries_.data());
}

void PassRunner::set_profiling(bool on, bool finish_each_pass) {
  profiling_ = on;
  finish_each_pass_ = on && finish_each_pass;
  if (!on) pending_.clear();
}

void PassRunner::after_transfer() {
  if (!profiling_) return;
  if (settle_target_.id() == 0) {
    settle_texture_ = Texture(1, 1, Format::R8, "timer_settle");
    settle_target_ = Framebuffer({&settle_texture_}, "timer_settle");
  }
  clear(settle_target_, glm::vec4(0.0f));
}

std::vector<PassRunner::PassTime> PassRunner::take_profile() {
  std::vector<PassTime> out;
  for (const Pending& p : pending_) {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(p.query, GL_QUERY_RESULT, &ns);
    auto it = out.begin();
    while (it != out.end() && it->name != p.name) ++it;
    if (it == out.end()) it = out.insert(out.end(), PassTime{p.name, 0.0, 0.0, 0});
    it->milliseconds += static_cast<double>(ns) * 1e-6;
    it->wall_milliseconds += p.wall_milliseconds;
    ++it->count;
  }
  pending_.clear();
  check_gl_errors("reading pass timers");
  return out;
}

namespace {

struct SetUniform {
  GLint location;
  void operator()(int v) const { glUniform1i(location, v); }
  void operator()(unsigned v) const { glUniform1ui(location, v); }
  void operator()(float v) const { glUniform1f(location, v); }
  void operator()(const glm::ivec2& v) const { glUniform2i(location, v.x, v.y); }
  void operator()(const glm::ivec3& v) const { glUniform3i(location, v.x, v.y, v.z); }
  void operator()(const glm::ivec4& v) const { glUniform4i(location, v.x, v.y, v.z, v.w); }
  void operator()(const std::vector<glm::ivec2>& v) const {
    glUniform2iv(location, static_cast<GLsizei>(v.size()), reinterpret_cast<const GLint*>(v.data()));
  }
  void operator()(const std::vector<glm::ivec4>& v) const {
    glUniform4iv(location, static_cast<GLsizei>(v.size()), reinterpret_cast<const GLint*>(v.data()));
  }
  void operator()(const glm::vec2& v) const { glUniform2f(location, v.x, v.y); }
  void operator()(const glm::vec4& v) const { glUniform4f(location, v.x, v.y, v.z, v.w); }
};

}  // namespace

void PassRunner::run(const char* name, const Program& program, const Framebuffer& target,
                     std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms) {
  run_in({0, 0, target.width(), target.height()}, name, program, target, inputs, uniforms);
}

void PassRunner::draw(const char* name, const Program& program, const Framebuffer& target, unsigned mode,
                      int vertices, int instances, const VertexBuffer* buffer,
                      std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms) {
  GLSURF_EXPECTS(vertices > 0 && instances > 0, std::string(name) + ": nothing to draw");
  draw({0, 0, target.width(), target.height()}, name, program, target, inputs, uniforms,
       {mode, vertices, instances, buffer ? buffer->vao() : 0u, Blend::Alpha, DepthMode::Off});
}

VertexBuffer::VertexBuffer(std::vector<int> sizes) {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  for (int s : sizes) stride_ += s;
  int offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    glEnableVertexAttribArray(static_cast<GLuint>(i));
    glVertexAttribPointer(static_cast<GLuint>(i), sizes[i], GL_FLOAT, GL_FALSE, stride_ * 4,
                          reinterpret_cast<const void*>(static_cast<std::uintptr_t>(offset * 4)));
    offset += sizes[i];
  }
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  check_gl_errors("creating a vertex buffer");
}

VertexBuffer::VertexBuffer(VertexBuffer&& o) noexcept
    : vao_(std::exchange(o.vao_, 0)),
      vbo_(std::exchange(o.vbo_, 0)),
      stride_(o.stride_),
      vertices_(o.vertices_),
      capacity_(o.capacity_) {}

VertexBuffer& VertexBuffer::operator=(VertexBuffer&& o) noexcept {
  if (this != &o) {
    if (vbo_) glDeleteBuffers(1, &vbo_);
    if (vao_) glDeleteVertexArrays(1, &vao_);
    vao_ = std::exchange(o.vao_, 0);
    vbo_ = std::exchange(o.vbo_, 0);
    stride_ = o.stride_;
    vertices_ = o.vertices_;
    capacity_ = o.capacity_;
  }
  return *this;
}

VertexBuffer::~VertexBuffer() {
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

void VertexBuffer::set(const std::vector<float>& data) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const std::size_t bytes = data.size() * sizeof(float);
  if (bytes > capacity_) {
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(bytes), data.data(), GL_DYNAMIC_DRAW);
    capacity_ = bytes;
  } else if (bytes > 0) {
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data.data());
  }
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  vertices_ = stride_ > 0 ? static_cast<int>(data.size() / static_cast<std::size_t>(stride_)) : 0;
  check_gl_errors("filling a vertex buffer");
}

void blit_to_window(const Framebuffer& source, int window_width, int window_height) {
  GLint previous_read = 0, previous_draw = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_draw);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, source.id());
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  const DrawStateGuard fixed({});  // blits obey the scissor box
  glBlitFramebuffer(0, 0, source.width(), source.height(), 0, window_height, window_width, 0,
                    GL_COLOR_BUFFER_BIT, GL_LINEAR);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous_draw));
  check_gl_errors("showing the frame");
}

void PassRunner::clear(const Framebuffer& target, const glm::vec4& value) {
  GLint previous_target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_target);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.id());
  const DrawStateGuard fixed({});  // clears obey the scissor box and the colour mask
  const GLfloat v[4] = {value.x, value.y, value.z, value.w};
  for (size_t i = 0; i < target.attachment_labels().size(); ++i) {
    glClearBufferfv(GL_COLOR, static_cast<GLint>(i), v);
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous_target));
  if (check_every_pass_) check_gl_errors("clearing '" + target.label() + "'");
}

void PassRunner::run_in(const Region& region, const char* name, const Program& program,
                        const Framebuffer& target, std::initializer_list<Input> inputs,
                        std::initializer_list<Uniform> uniforms) {
  draw(region, name, program, target, inputs, uniforms,
       {GL_TRIANGLES, 3, 1, 0u, Blend::None, DepthMode::Off});
}

void PassRunner::run_depth(DepthMode depth, const Region& region, const char* name, const Program& program,
                           const Framebuffer& target, std::initializer_list<Input> inputs,
                           std::initializer_list<Uniform> uniforms) {
  GLSURF_EXPECTS(depth == DepthMode::Off || target.has_depth(),
                 std::string(name) + ": target '" + target.label() + "' has no depth attachment");
  draw(region, name, program, target, inputs, uniforms, {GL_TRIANGLES, 3, 1, 0u, Blend::None, depth});
}

void PassRunner::clear_depth(const Framebuffer& target, float value) {
  GLSURF_EXPECTS(target.has_depth(), "clear_depth: '" + target.label() + "' has no depth attachment");
  GLint previous_target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_target);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.id());
  const DrawStateGuard fixed({false, false, true, true});  // and the depth mask
  glClearBufferfv(GL_DEPTH, 0, &value);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous_target));
  if (check_every_pass_) check_gl_errors("clearing depth of '" + target.label() + "'");
}

void PassRunner::scatter(const char* name, const Program& program, const Framebuffer& target, int points,
                         std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms) {
  GLSURF_EXPECTS(points > 0, std::string(name) + ": no points to scatter");
  draw({0, 0, target.width(), target.height()}, name, program, target, inputs, uniforms,
       {GL_POINTS, points, 1, 0u, Blend::Additive, DepthMode::Off});
}

void PassRunner::draw(const Region& region, const char* name, const Program& program,
                      const Framebuffer& target, Range<Input> inputs, Range<Uniform> uniforms,
                      const DrawState& state) {
  const DepthMode depth = state.depth;
  GLSURF_EXPECTS(region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0 &&
                     region.x + region.width <= target.width() && region.y + region.height <= target.height(),
                 std::string(name) + ": region outside target '" + target.label() + "'");
  GLSURF_EXPECTS(static_cast<int>(inputs.size()) <= max_units_,
                 std::string(name) + ": more inputs than texture units");
  for (const Input& in : inputs) {
    GLSURF_EXPECTS(in.texture, std::string(name) + ": input '" + in.sampler + "' is empty");
    GLSURF_EXPECTS(!target.writes(in.texture),
                   std::string(name) + ": reads and writes texture '" + in.texture.label() + "'");
  }

  // A misspelt name would otherwise be ignored by GL without a word.
  for (const Input& in : inputs) {
    GLSURF_EXPECTS(program.uniform_location(in.sampler) != -1,
                   std::string(name) + ": " + program.label() + " has no sampler '" + in.sampler + "'");
  }
  for (const Uniform& u : uniforms) {
    GLSURF_EXPECTS(program.uniform_location(u.name) != -1,
                   std::string(name) + ": " + program.label() + " has no uniform '" + u.name + "'");
  }

  GLint previous_target = 0, previous_viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_target);
  glGetIntegerv(GL_VIEWPORT, previous_viewport);
  glUseProgram(program.id());
  // A sampler object bound by the host would override the textures'
  // nearest filtering (and make integer textures incomplete): none while the
  // pass runs, the host's afterwards.
  GLint unit = 0, host_samplers[32] = {};
  GLSURF_EXPECTS(inputs.size() <= 32, std::string(name) + ": more than 32 inputs");
  for (const Input& in : inputs) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glGetIntegerv(GL_SAMPLER_BINDING, &host_samplers[unit]);
    glBindSampler(static_cast<GLuint>(unit), 0);
    glBindTexture(in.texture.target(), in.texture.id());
    glUniform1i(program.uniform_location(in.sampler), unit);
    ++unit;
  }
  for (const Uniform& u : uniforms) {
    std::visit(SetUniform{program.uniform_location(u.name)}, u.value);
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.id());
  glViewport(region.x, region.y, region.width, region.height);
  glBindVertexArray(state.vao ? state.vao : vao_);
  DrawStateGuard fixed({state.blend != Blend::None, depth != DepthMode::Off, depth == DepthMode::Mark,
                        depth != DepthMode::Mark});
  if (depth != DepthMode::Off) glDepthFunc(depth == DepthMode::Mark ? GL_ALWAYS : GL_GREATER);
  if (state.blend != Blend::None) {
    glBlendEquation(GL_FUNC_ADD);
    if (state.blend == Blend::Additive) {
      glBlendFunc(GL_ONE, GL_ONE);
    } else {
      // "Over" for alpha too: drawing on an opaque target leaves it opaque
      // (GL_SRC_ALPHA for alpha left the HUD panel at alpha 0.75 in screenshots).
      glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }
  }
  if (profiling_) {
    if (pending_.size() == queries_.size()) {
      queries_.push_back(0);
      glGenQueries(1, &queries_.back());
    }
    const GLuint query = queries_[pending_.size()];
    if (finish_each_pass_) glFinish();
    const auto start = std::chrono::steady_clock::now();
    glBeginQuery(GL_TIME_ELAPSED, query);
    issue(region, state);
    glEndQuery(GL_TIME_ELAPSED);
    double wall = 0;
    if (finish_each_pass_) {
      glFinish();
      wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    pending_.push_back({name, query, wall});
  } else {
    issue(region, state);
  }

  // Leave nothing behind: unbind what we bound, restore target and viewport.
  glBindVertexArray(0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous_target));
  glViewport(previous_viewport[0], previous_viewport[1], previous_viewport[2], previous_viewport[3]);
  for (GLint i = unit - 1; i >= 0; --i) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
    glBindTexture(inputs.begin()[i].texture.target(), 0);
    glBindSampler(static_cast<GLuint>(i), static_cast<GLuint>(host_samplers[i]));
  }
  glUseProgram(0);
  ++passes_run_;
  if (check_every_pass_) check_gl_errors(std::string("pass '") + name + "' into '" + target.label() + "'");
}

void PassRunner::issue(const Region& region, const DrawState& state) {
  const std::int64_t row_work =
      static_cast<std::int64_t>(region.width) * std::max<std::int64_t>(state.work, 1);
  const bool full_screen = state.mode == GL_TRIANGLES && state.vao == 0;
  if (!full_screen || row_work * region.height <= max_draw_work_) {
    glDrawArraysInstanced(state.mode, 0, state.vertices, state.instances);
    ++draws_issued_;
    return;
  }
  // The scissor test is off here (DrawStateGuard): on for the bands, the
  // host's box put back after them (the guard restores the switch).
  GLint box[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_SCISSOR_BOX, box);
  glEnable(GL_SCISSOR_TEST);
  const int rows = static_cast<int>(std::max<std::int64_t>(1, max_draw_work_ / row_work));
  for (int y = region.y; y < region.y + region.height; y += rows) {
    glScissor(region.x, y, region.width, std::min(rows, region.y + region.height - y));
    glDrawArraysInstanced(state.mode, 0, state.vertices, state.instances);
    glFlush();  // each band its own submission, so the watchdog times bands
    ++draws_issued_;
  }
  glScissor(box[0], box[1], box[2], box[3]);
  glDisable(GL_SCISSOR_TEST);
}

PingPong::PingPong(int width, int height, Format format, const std::string& label) {
  for (int i = 0; i < 2; ++i) {
    textures_[i] = Texture(width, height, format, label + "_" + std::to_string(i));
  }
  for (int i = 0; i < 2; ++i) {
    targets_[i] = Framebuffer({&textures_[i]}, label + "_" + std::to_string(i));
  }
}

namespace {
template <typename T>
std::vector<T> take(std::vector<T>& from) {
  std::vector<T> out;
  out.swap(from);
  return out;
}
}  // namespace

Pass::Pass(const ShaderSource& shaders, const char* key, const std::string& fragment,
           const std::vector<std::string>& defines, const std::string& vertex)
    : program_(shaders, vertex, fragment, defines), key_(key) {}

void Pass::draw(PassRunner& runner, const Framebuffer& target) {
  draw(runner, target, {0, 0, target.width(), target.height()});
}

void Pass::draw(PassRunner& runner, const Framebuffer& target, const PassRunner::Region& region) {
  draw_depth(runner, PassRunner::DepthMode::Off, target, region);
}

void Pass::draw_depth(PassRunner& runner, PassRunner::DepthMode depth, const Framebuffer& target,
                      const PassRunner::Region& region) {
  const std::vector<Input> inputs = take(inputs_);  // set for this draw only, also if it throws
  const std::vector<Uniform> uniforms = take(uniforms_);
  GLSURF_EXPECTS(depth == PassRunner::DepthMode::Off || target.has_depth(),
                 std::string(key_) + ": target '" + target.label() + "' has no depth attachment");
  runner.draw(region, key_, program_, target, {inputs.data(), inputs.size()},
              {uniforms.data(), uniforms.size()},
              {GL_TRIANGLES, 3, 1, 0u, PassRunner::Blend::None, depth, work_});
}

void Pass::scatter(PassRunner& runner, const Framebuffer& target, int points) {
  const std::vector<Input> inputs = take(inputs_);
  const std::vector<Uniform> uniforms = take(uniforms_);
  GLSURF_EXPECTS(points > 0, std::string(key_) + ": no points to scatter");
  runner.draw({0, 0, target.width(), target.height()}, key_, program_, target, {inputs.data(), inputs.size()},
              {uniforms.data(), uniforms.size()},
              {GL_POINTS, points, 1, 0u, PassRunner::Blend::Additive, PassRunner::DepthMode::Off});
}

}  // namespace glsurf::gl
