// The GL layer on llvmpipe through EGL: context facts, textures, the pass
// runner's refusals, shader errors with file and line.
#include <doctest/doctest.h>

#include <chrono>

#include "gl/error.hpp"
#include "gl/framebuffer.hpp"
#include "gl/gl.hpp"
#include "gl/pass.hpp"
#include "gl/program.hpp"
#include "gl/timer.hpp"
#include "support.hpp"
#include "surf/detector.hpp"

using namespace glsurf;

TEST_SUITE("gl") {
  TEST_CASE("the headless context is OpenGL 3.3+ through EGL with the limits we need") {
    const gl::ContextInfo& info = test::headless_context().info();
    MESSAGE("renderer: " << info.renderer << ", " << info.version << ", "
                         << std::string(gl::to_string(info.path)));
    CHECK(info.path != gl::ContextPath::Glfw);
    CHECK(info.max_texture_size >= 4096);
    CHECK(info.max_draw_buffers >= 8);  // GL 3.3's minimum: the fused matcher's 8 queries
    CHECK(!info.renderer.empty());
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("textures round-trip exactly, odd widths included") {
    test::headless_context();
    const GrayImage image = test::random_image(13, 5, 1);
    gl::Texture t(13, 5, gl::Format::R8, "odd");
    t.upload(image.pixels.data());
    CHECK(t.download_u8() == image.pixels);
    std::vector<std::uint32_t> values(7 * 3);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0xFFFFFFF0u + static_cast<std::uint32_t>(i);
    gl::Texture u(7, 3, gl::Format::R32UI, "u32");
    u.upload(values.data());
    CHECK(u.download_u32() == values);
    gl::Texture moved = std::move(u);
    CHECK(!u);
    CHECK(moved.download_u32() == values);
    CHECK_THROWS_AS(moved.download_u8(), std::logic_error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("a texture larger than GL_MAX_TEXTURE_SIZE is refused with its size") {
    const int max = test::headless_context().info().max_texture_size;
    CHECK_THROWS_WITH_AS(gl::Texture(max + 1, 1, gl::Format::R32UI, "huge"),
                         doctest::Contains("GL_MAX_TEXTURE_SIZE"), Error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("the pass runner refuses to read the texture it writes") {
    test::headless_context();
    gl::PassRunner runner;
    const gl::ShaderSource shaders = gl::ShaderSource::embedded();
    gl::Program program(shaders, "common/fullscreen.vert", "integral/scan_up.frag");
    gl::Texture a(4, 4, gl::Format::R32UI, "a");
    gl::Framebuffer target({&a}, "a");
    CHECK_THROWS_WITH_AS(
        runner.run("self", program, target, {{"u_source", a}}, {{"u_axis", glm::ivec2(1, 0)}}),
        doctest::Contains("reads and writes texture 'a'"), std::logic_error);
    CHECK(runner.passes_run() == 0);
    gl::Texture b(4, 4, gl::Format::R32UI, "b");
    gl::Framebuffer ab({&a, &b}, "ab");
    CHECK_THROWS_AS(runner.run("self", program, ab, {{"u_source", b}}), std::logic_error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("a pass runs on the GPU: the up-sweep sums pairs, wrapping mod 2^32") {
    test::headless_context();
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    gl::Program program(gl::ShaderSource::embedded(), "common/fullscreen.vert", "integral/scan_up.frag");
    const std::vector<std::uint32_t> in{1, 2, 3, 4, 5, 0xFFFFFFFFu, 2, 7, 9};  // 3 x 3
    gl::Texture source(3, 3, gl::Format::R32UI, "source");
    source.upload(in.data());
    gl::Texture out(2, 3, gl::Format::R32UI, "pairs");
    const std::vector<std::uint32_t> sentinel(6, 0xDEADBEEFu);
    out.upload(sentinel.data());
    gl::Framebuffer target({&out}, "pairs");
    runner.run("integral_scan_up", program, target, {{"u_source", source}}, {{"u_axis", glm::ivec2(1, 0)}});
    CHECK(runner.passes_run() == 1);
    // rows: (1+2, 3+0), (4+5, 0xFFFFFFFF+0), (2+7, 9+0) — column 3 is zero padding
    CHECK(out.download_u32() == std::vector<std::uint32_t>{3, 3, 9, 0xFFFFFFFFu, 9, 9});
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE(
      "a declared pass draws what the runner draws, under its timer key, with what was set for that draw "
      "only") {
    test::headless_context();
    // The up-sweep declared as a pass: its shader, key and setters once.
    class ScanUp : public gl::Pass {
     public:
      ScanUp() : Pass(gl::ShaderSource::embedded(), "integral_scan_up", "integral/scan_up.frag") {}
      ScanUp& source(const gl::Texture& t) { return input("u_source", t), *this; }
      ScanUp& along_rows() { return uniform("u_axis", glm::ivec2(1, 0)), *this; }
    };
    gl::PassRunner runner;
    runner.set_check_every_pass(true);
    runner.set_profiling(true);
    const std::vector<std::uint32_t> in{1, 2, 3, 4, 5, 0xFFFFFFFFu, 2, 7, 9};  // 3 x 3
    gl::Texture source(3, 3, gl::Format::R32UI, "source");
    source.upload(in.data());
    gl::Texture out(2, 3, gl::Format::R32UI, "pairs");
    gl::Framebuffer target({&out}, "pairs");
    ScanUp pass;
    pass.source(source).along_rows().draw(runner, target);
    CHECK(out.download_u32() == std::vector<std::uint32_t>{3, 3, 9, 0xFFFFFFFFu, 9, 9});
    const std::vector<gl::PassRunner::PassTime> profile = runner.take_profile();
    REQUIRE(profile.size() == 1);
    CHECK(profile[0].name == "integral_scan_up");
    runner.set_profiling(false);
    // A draw refused (it would read its own target) leaves nothing set for
    // the next one: drawn into that target from another input, it is not
    // refused again.
    gl::Texture other(2, 3, gl::Format::R32UI, "other");
    gl::Framebuffer other_target({&other}, "other");
    CHECK_THROWS_WITH_AS(pass.source(other).along_rows().draw(runner, other_target),
                         doctest::Contains("reads and writes texture 'other'"), std::logic_error);
    CHECK_NOTHROW(pass.source(source).along_rows().draw(runner, other_target));
    CHECK(other.download_u32() == std::vector<std::uint32_t>{3, 3, 9, 0xFFFFFFFFu, 9, 9});
    // Only the region given is drawn.
    out.upload(std::vector<std::uint32_t>(6, 0).data());
    pass.source(source).along_rows().draw(runner, target, {0, 1, 2, 1});
    CHECK(out.download_u32() == std::vector<std::uint32_t>{0, 0, 9, 0xFFFFFFFFu, 0, 0});
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("ping-pong alternates between two targets") {
    test::headless_context();
    gl::PingPong pp(2, 2, gl::Format::R32UI, "pp");
    const unsigned front = pp.front().id();
    CHECK(pp.back().writes(pp.front()) == false);
    pp.swap();
    CHECK(pp.front().id() != front);
    CHECK(pp.back().writes(pp.front()) == false);
    pp.swap();
    CHECK(pp.front().id() == front);
  }

  // A draw big enough to take measurable time: an up-sweep level of 1024 x 1024.
  struct TimedDraw {
    gl::Program program{gl::ShaderSource::embedded(), "common/fullscreen.vert", "integral/scan_up.frag"};
    gl::Texture source{2048, 1024, gl::Format::R32UI, "source"};
    gl::Texture out{1024, 1024, gl::Format::R32UI, "out"};
    gl::Framebuffer target{{&out}, "out"};
    void run(gl::PassRunner& runner, const char* name) const {
      runner.run(name, program, target, {{"u_source", source}}, {{"u_axis", glm::ivec2(1, 0)}});
    }
  };

  TEST_CASE("a GPU timer measures real draws: more than zero, not more than the wall clock allows") {
    test::headless_context();
    gl::PassRunner runner;
    const TimedDraw draw;
    gl::GpuTimer timer;
    for (int frame = 0; frame < 3; ++frame) {  // the first query of a context is the suspicious one
      glFinish();
      const auto t0 = std::chrono::steady_clock::now();
      timer.begin();
      for (int i = 0; i < 4; ++i) {
        draw.run(runner, "integral_scan_up");
      }
      timer.end();
      glFinish();
      const double wall =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const double gpu = timer.milliseconds();
      INFO("frame " << frame << ": GPU " << gpu << " ms, wall " << wall << " ms");
      CHECK(gpu > 0.0);
      CHECK(gpu <= wall * 2 + 5);  // loose: a busy 2-core machine; catches bogus values like uptime
    }
    CHECK_THROWS_AS(timer.end(), std::logic_error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE(
      "profiling per pass: timers always, the wall clock between finishes only when asked, totals per name") {
    test::headless_context();
    gl::PassRunner runner;
    const TimedDraw draw;
    for (const bool finish : {false, true}) {
      runner.set_profiling(true, finish);
      glFinish();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 3; ++i) draw.run(runner, "integral_scan_up");
      draw.run(runner, "other");
      glFinish();
      const double wall =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const auto profile = runner.take_profile();
      runner.set_profiling(false);
      INFO("finish " << finish << ": frame wall " << wall << " ms");
      REQUIRE(profile.size() == 2);
      CHECK(profile[0].name == "integral_scan_up");
      CHECK(profile[0].count == 3);
      CHECK(profile[1].count == 1);
      double walls = 0;
      for (const auto& p : profile) {
        CHECK(p.milliseconds > 0.0);
        if (finish) {
          CHECK(p.wall_milliseconds > 0.0);
        } else {
          CHECK(p.wall_milliseconds == 0.0);
        }
        walls += p.wall_milliseconds;
      }
      CHECK(walls <= wall);                    // intervals within the frame, one after the other
      if (finish) CHECK(walls >= 0.5 * wall);  // the draws, waited for, are most of the frame
      CHECK(runner.take_profile().empty());
    }
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("the pass runner refuses misspelt samplers and uniforms, and restores the target") {
    test::headless_context();
    gl::PassRunner runner;
    gl::Program program(gl::ShaderSource::embedded(), "common/fullscreen.vert", "integral/scan_up.frag");
    gl::Texture source(4, 4, gl::Format::R32UI, "source");
    gl::Texture out(2, 4, gl::Format::R32UI, "out");
    gl::Framebuffer target({&out}, "out");
    CHECK_THROWS_WITH_AS(
        runner.run("p", program, target, {{"u_sourse", source}}, {{"u_axis", glm::ivec2(1, 0)}}),
        doctest::Contains("no sampler 'u_sourse'"), std::logic_error);
    CHECK_THROWS_WITH_AS(
        runner.run("p", program, target, {{"u_source", source}}, {{"u_axsi", glm::ivec2(1, 0)}}),
        doctest::Contains("no uniform 'u_axsi'"), std::logic_error);
    CHECK(runner.passes_run() == 0);

    gl::Texture other(3, 5, gl::Format::R32UI, "other");
    gl::Framebuffer bound({&other}, "other");
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, bound.id());
    glViewport(1, 2, 3, 4);
    runner.run("p", program, target, {{"u_source", source}}, {{"u_axis", glm::ivec2(1, 0)}});
    GLint after = 0, viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &after);
    glGetIntegerv(GL_VIEWPORT, viewport);
    CHECK(static_cast<unsigned>(after) == bound.id());
    CHECK(viewport[0] == 1);
    CHECK(viewport[3] == 4);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("with no current context, GL objects say so; a GpuDetector makes its context current") {
    gl::Context& shared = test::headless_context();
    { gl::Context other = gl::Context::headless(); }  // destroying it leaves no context current
    CHECK_THROWS_WITH_AS(gl::PassRunner(), "cannot create the pass runner: no current OpenGL context", Error);
    CHECK_THROWS_WITH_AS(
        gl::Program(gl::ShaderSource::embedded(), "common/fullscreen.vert", "view/colour.frag"),
        doctest::Contains("no current OpenGL context"), Error);
    CHECK_THROWS_WITH_AS(gl::Texture(2, 2, gl::Format::R8, "t"),
                         doctest::Contains("no current OpenGL context"), Error);
    // It was "shader compile failed: common/fullscreen.vert".
    GpuDetector detector(shared, DetectorConfig{});
    CHECK(detector.detect(load_gray(GLSURF_TEST_ASSET_DIR "/box.png")).size() > 100);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("destroying or replacing one headless context leaves the others working") {
    {
      gl::Context second = gl::Context::headless();
      second = gl::Context::headless();  // the first "second" is destroyed here
      gl::Texture t(3, 3, gl::Format::R8, "in second");
      CHECK(t.download_u8().size() == 9);
    }
    test::headless_context();  // make the shared test context current again
    const GrayImage image = test::random_image(5, 3, 2);
    gl::Texture t(5, 3, gl::Format::R8, "after");
    t.upload(image.pixels.data());
    CHECK(t.download_u8() == image.pixels);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

  TEST_CASE("a broken shader reports its file and line") {
    test::headless_context();
    test::ScratchShaderDir dir("glsurf_broken");
    dir.write("common/fullscreen.vert", gl::ShaderSource::embedded().read("common/fullscreen.vert"));
    dir.write("broken/bad.frag",
              "#version 330 core\n"
              "// line 2\n"
              "out vec4 color;\n"
              "void main() {\n"
              "  color = vec4(1.0);\n"
              "  color += undeclared_thing;\n"  // line 6
              "}\n");
    const gl::ShaderSource src = gl::ShaderSource::directory(dir.root.string());
    CHECK_THROWS_WITH_AS(gl::Program(src, "common/fullscreen.vert", "broken/bad.frag"),
                         doctest::Contains("broken/bad.frag:6"), Error);
    // The first message leads the error, once; the driver's further ones follow.
    try {
      gl::Program(src, "common/fullscreen.vert", "broken/bad.frag");
      FAIL("a broken shader compiled");
    } catch (const Error& e) {
      const std::string what = e.what(), lead = "shader compile failed: ";
      REQUIRE(what.rfind(lead, 0) == 0);
      const std::string first = what.substr(lead.size(), what.find('\n') - lead.size());
      CHECK(what.find(first, lead.size() + first.size()) == std::string::npos);
      CHECK(what.back() != '\n');
    }

    // A warning before the error does not stand in for it in the headline.
    dir.write("broken/warn.frag",
              "#version 330 core\n"
              "out vec4 color;\n"
              "void main() {\n"
              "  float x;\n"
              "  color = vec4(x);\n"            // line 5: x is used uninitialised
              "  color += undeclared_thing;\n"  // line 6
              "}\n");
    try {
      gl::Program(src, "common/fullscreen.vert", "broken/warn.frag");
      FAIL("a broken shader compiled");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).rfind("shader compile failed: broken/warn.frag:6", 0) == 0);
    }

    // The error sits in an included file, after a variant define was inserted.
    dir.write("broken/inc.glsl",
              "// line 1\n"
              "// line 2\n"
              "float helper() { return missing_value; }\n");  // line 3
    dir.write("broken/uses_inc.frag",
              "#version 330 core\n"
              "#include \"broken/inc.glsl\"\n"
              "out vec4 color;\n"
              "void main() { color = vec4(helper()); }\n");
    CHECK_THROWS_WITH_AS(gl::Program(src, "common/fullscreen.vert", "broken/uses_inc.frag", {"SOME_VARIANT"}),
                         doctest::Contains("broken/inc.glsl:3"), Error);

    // After the include, lines of the main file are still right.
    dir.write("broken/after_inc.frag",
              "#version 330 core\n"
              "#include \"broken/inc2.glsl\"\n"
              "out vec4 color;\n"
              "void main() {\n"
              "  color = vec4(oops);\n"  // line 5
              "}\n");
    dir.write("broken/inc2.glsl", "float fine() { return 1.0; }\n");
    CHECK_THROWS_WITH_AS(gl::Program(src, "common/fullscreen.vert", "broken/after_inc.frag"),
                         doctest::Contains("broken/after_inc.frag:5"), Error);
    CHECK_NOTHROW(gl::check_gl_errors("end of test"));
  }

}  // TEST_SUITE
