// The pass runner, and the passes it draws: every GPU stage in glsurf is a
// sequence of passes, each declared once as a gl::Pass (below) and drawn by
// a PassRunner:
//
//   scan_up_.entries(level0).axis(glm::ivec2(1, 0)).draw(runner, target_fbo);
//
// PassRunner::run(name, program, target, inputs, uniforms) is the layer
// underneath, for code that draws a program directly (the GL tests).
// run() binds the program, the inputs (texture unit i for input i) and the
// target, sets the viewport to the target's size, draws one full-screen
// triangle, and unbinds everything again (scatter() draws points instead):
// afterwards texture units 0 .. inputs-1, the active unit (0), the program
// and the vertex array are unbound, whatever the host had bound there (the
// framebuffer, viewport and the state.hpp switches are the host's again). It refuses (GLSURF_EXPECTS) to read
// a texture that the target writes. With check_every_pass on (tests, debug
// builds) it drains the GL error queue after each pass and names the pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gl/framebuffer.hpp"
#include "gl/program.hpp"
#include "gl/texture.hpp"

namespace glsurf::gl {

struct Input {
  const char* sampler;
  const Texture& texture;
};

struct Uniform {
  const char* name;
  std::variant<int, unsigned, float, glm::ivec2, glm::ivec3, glm::ivec4, glm::vec2, glm::vec4,
               std::vector<glm::ivec2>, std::vector<glm::ivec4>>
      value;  // vectors set uniform arrays from element 0
};

class PassRunner {
 public:
  PassRunner();  // needs a current context; owns the empty VAO the triangle is drawn from
  PassRunner(PassRunner&& other) noexcept;
  PassRunner& operator=(PassRunner&& other) noexcept;
  PassRunner(const PassRunner&) = delete;
  PassRunner& operator=(const PassRunner&) = delete;
  ~PassRunner();

  void run(const char* name, const Program& program, const Framebuffer& target,
           std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms = {});

  // The same, drawing only into `region` of the target (for atlases: several
  // maps in one texture). gl_FragCoord keeps the target's coordinates; the
  // shader subtracts the region's origin.
  struct Region {
    int x = 0, y = 0, width = 0, height = 0;
  };
  void run_in(const Region& region, const char* name, const Program& program, const Framebuffer& target,
              std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms = {});

  // Early-Z culling with the target's depth attachment:
  //   Mark: the shader sets gl_FragDepth for the fragments it keeps (depth
  //         test ALWAYS, depth written, colour writes off); discarded
  //         fragments leave depth as is.
  //   Cull: the triangle (depth 0.5) is drawn with GREATER and no depth
  //         writes, so only texels whose depth is below 0.5 run the shader;
  //         the others are rejected before shading.
  enum class DepthMode { Off, Mark, Cull };
  void run_depth(DepthMode depth, const Region& region, const char* name, const Program& program,
                 const Framebuffer& target, std::initializer_list<Input> inputs,
                 std::initializer_list<Uniform> uniforms = {});
  void clear_depth(const Framebuffer& target, float value);

  // Scatter: draws `points` GL_POINTS (the program's vertex shader places
  // point i from gl_VertexID, e.g. into a histogram bin, or outside clip space
  // to skip it) with additive blending into float targets: counts and sums.
  void scatter(const char* name, const Program& program, const Framebuffer& target, int points,
               std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms = {});

  // Geometry that is not a full-screen triangle (the viewer's keypoint
  // circles and text): `vertices` vertices, `instances` instances, of GL
  // `mode` (GL_LINES, GL_TRIANGLES, ...), with the vertex data of `buffer`
  // (may be null: vertices made in the shader from gl_VertexID), alpha
  // blending on.
  void draw(const char* name, const Program& program, const Framebuffer& target, unsigned mode, int vertices,
            int instances, const class VertexBuffer* buffer, std::initializer_list<Input> inputs,
            std::initializer_list<Uniform> uniforms = {});

  // Call after an upload, readback or buffer copy that a timed pass follows.
  // llvmpipe answers a timer query begun right after one with the time since
  // boot unless something is rasterised in between; while profiling, this
  // clears a 1x1 target. (The copies themselves are not timed: llvmpipe does
  // them on the calling thread, outside its timer queries.)
  void after_transfer();

  // Sets every texel of every attachment of `target` to `value`.
  void clear(const Framebuffer& target, const glm::vec4& value);

  void set_check_every_pass(bool on) { check_every_pass_ = on; }

  // Per-pass timing: while on, every pass runs inside its own
  // GL_TIME_ELAPSED query (so no other timer may be running); with
  // finish_each_pass, also between two glFinish calls whose wall-clock
  // interval is recorded. take_profile() waits for the results and returns the
  // totals per pass name, in the order the names first ran, then clears them.
  // The finishes serialise the passes, so such frames are slower than others:
  // time whole frames separately. Why a second clock: llvmpipe's queries read
  // far too little for the passes drawn into the candidate atlas
  // (docs/notes/llvmpipe.md), while on a real GPU the finishes add their own
  // overhead.
  struct PassTime {
    std::string name;
    double milliseconds = 0;       // GL_TIME_ELAPSED
    double wall_milliseconds = 0;  // glFinish to glFinish around the pass (0 unless finish_each_pass)
    int count = 0;
  };
  void set_profiling(bool on, bool finish_each_pass = false);
  std::vector<PassTime> take_profile();
  bool check_every_pass() const { return check_every_pass_; }
  std::uint64_t passes_run() const { return passes_run_; }

  // Bounded draws: a desktop GPU that drives a display kills a draw that runs
  // for more than about 2 s (Windows' TDR, NVIDIA's watchdog under X), so no
  // single draw of a full-screen pass may exceed `max_draw_work` units of
  // work: fragments times the pass's work per fragment (Pass::work, about
  // the multiply-adds or fetches one fragment does). A pass above it is
  // drawn in bands of rows under the scissor test, flushed one by one; every
  // fragment computes what it would in one draw, so the result is the same.
  // The default, 2^30, is about 40 ms of a 25 G multiply-add/s GPU, the
  // slowest class that runs OpenGL 3.3. Tests set small values.
  static constexpr std::int64_t kMaxDrawWork = std::int64_t(1) << 30;
  void set_max_draw_work(std::int64_t work) { max_draw_work_ = work; }
  std::int64_t max_draw_work() const { return max_draw_work_; }
  // Draw calls issued: passes_run() plus the extra bands.
  std::uint64_t draws_issued() const { return draws_issued_; }

 private:
  enum class Blend { None, Additive, Alpha };
  struct DrawState {
    unsigned mode;
    int vertices, instances;
    unsigned vao;  // 0: the runner's empty one
    Blend blend;
    DepthMode depth;
    std::int64_t work = 1;  // per fragment: full-screen passes above max_draw_work_ are drawn in bands
  };
  // Every draw goes through here: checks, bindings, the draw, and restoring state.
  void draw(const Region& region, const char* name, const Program& program, const Framebuffer& target,
            std::initializer_list<Input> inputs, std::initializer_list<Uniform> uniforms,
            const DrawState& state) {
    draw(region, name, program, target, {inputs.begin(), inputs.size()}, {uniforms.begin(), uniforms.size()},
         state);
  }
  template <typename T>
  struct Range {
    const T* first;
    std::size_t count;
    const T* begin() const { return first; }
    const T* end() const { return first + count; }
    std::size_t size() const { return count; }
  };
  void draw(const Region& region, const char* name, const Program& program, const Framebuffer& target,
            Range<Input> inputs, Range<Uniform> uniforms, const DrawState& state);
  friend class Pass;

  unsigned vao_ = 0;
  int max_units_ = 0;
  bool check_every_pass_ = false;
  std::uint64_t passes_run_ = 0, draws_issued_ = 0;
  std::int64_t max_draw_work_ = kMaxDrawWork;
  // The draw itself, in bands of rows of `region` when it is a full-screen
  // pass of more than max_draw_work_.
  void issue(const Region& region, const DrawState& state);
  bool profiling_ = false, finish_each_pass_ = false;
  std::vector<unsigned> queries_;  // pool, grown on first use
  struct Pending {
    std::string name;
    unsigned query;
    double wall_milliseconds;
  };
  std::vector<Pending> pending_;  // this frame's timed passes
  Texture settle_texture_;        // after_transfer()'s 1x1 target
  Framebuffer settle_target_;
};

// Float vertex data with its attribute layout (attribute i: sizes[i] floats,
// interleaved), re-filled by set() without reallocating when it fits.
class VertexBuffer {
 public:
  explicit VertexBuffer(std::vector<int> sizes);
  VertexBuffer(VertexBuffer&&) noexcept;
  VertexBuffer& operator=(VertexBuffer&&) noexcept;
  VertexBuffer(const VertexBuffer&) = delete;
  VertexBuffer& operator=(const VertexBuffer&) = delete;
  ~VertexBuffer();
  void set(const std::vector<float>& data);
  unsigned vao() const { return vao_; }
  int vertices() const { return vertices_; }

 private:
  unsigned vao_ = 0, vbo_ = 0;
  int stride_ = 0, vertices_ = 0;
  std::size_t capacity_ = 0;
};

// Copies `source` (attachment 0) to the current window's framebuffer,
// scaled to window_width x window_height, upside down: textures hold row 0
// at the top of the picture, windows at the bottom.
void blit_to_window(const Framebuffer& source, int window_width, int window_height);

// Two same-sized textures with a framebuffer each, for iterated passes that
// read the previous result: read front(), write into back(), then swap().
// reset(steps) before a run of `steps` passes makes the last one write
// texture(0), so the result lives in the same texture every frame.
class PingPong {
 public:
  PingPong() = default;
  PingPong(int width, int height, Format format, const std::string& label);

  const Texture& front() const { return textures_[front_]; }
  const Framebuffer& back() const { return targets_[1 - front_]; }
  void swap() { front_ = 1 - front_; }
  void reset(int steps) { front_ = steps % 2; }
  const Texture& texture(int i) const { return textures_[i]; }

 private:
  Texture textures_[2];
  Framebuffer targets_[2];
  int front_ = 0;
};

// A pass declared once: its shader, its timer key, and the inputs and
// uniforms it takes. A stage declares each of its passes as a class derived
// from Pass whose setters name the shader's samplers and uniforms, so that a
// call site reads as the paper's step and cannot misspell a name:
//
//   class ChoosePass : public gl::Pass {
//    public:
//     explicit ChoosePass(const gl::ShaderSource& shaders)
//         : Pass(shaders, "select_choose", "select/choose.frag") {}
//     ChoosePass& histogram(const gl::Texture& bins) { return input("u_histogram", bins), *this; }
//     ChoosePass& wanted(unsigned n) { return uniform("u_wanted", n), *this; }
//   };
//   choose_.histogram(bins_).wanted(n).draw(runner, target);
//
// What is set applies to the next draw only: every draw starts with none.
class Pass {
 public:
  Pass() = default;  // no program: to be assigned
  Pass(const ShaderSource& shaders, const char* key, const std::string& fragment,
       const std::vector<std::string>& defines = {}, const std::string& vertex = "common/fullscreen.vert");
  Pass(Pass&&) noexcept = default;
  Pass& operator=(Pass&&) noexcept = default;

  const char* key() const { return key_; }  // the timer key (PassRunner::take_profile)
  const Program& program() const { return program_; }
  bool built() const { return program_.id() != 0; }

  // The full-screen triangle over all of `target`, or over `region` of it.
  void draw(PassRunner& runner, const Framebuffer& target);
  void draw(PassRunner& runner, const Framebuffer& target, const PassRunner::Region& region);
  // The same with the depth test (PassRunner::run_depth).
  void draw_depth(PassRunner& runner, PassRunner::DepthMode depth, const Framebuffer& target,
                  const PassRunner::Region& region);
  // `points` points, added up where they land (PassRunner::scatter).
  void scatter(PassRunner& runner, const Framebuffer& target, int points);

  // About the multiply-adds or texel fetches one fragment does (1 by
  // default): PassRunner splits a draw whose fragments times this exceed its
  // max_draw_work.
  std::int64_t work() const { return work_; }

 protected:
  void set_work(std::int64_t per_fragment) { work_ = per_fragment; }
  void input(const char* sampler, const Texture& texture) { inputs_.push_back({sampler, texture}); }
  void uniform(const char* name, decltype(Uniform::value) value) {
    uniforms_.push_back({name, std::move(value)});
  }

 private:
  Program program_;
  const char* key_ = "";
  std::int64_t work_ = 1;
  std::vector<Input> inputs_;
  std::vector<Uniform> uniforms_;
};

}  // namespace glsurf::gl
