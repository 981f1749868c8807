// The shader preprocessor (no GL needed): includes, variant defines, #line
// bookkeeping and the mapping of driver logs back to file:line.
#include <doctest/doctest.h>

#include "gl/error.hpp"
#include "gl/shader_source.hpp"
#include "support.hpp"

using namespace glsurf;

TEST_SUITE("cpu") {
  TEST_CASE("includes are spliced once with #line directives, defines follow #version") {
    test::ScratchShaderDir dir("glsurf_shaders");
    dir.write("common/a.glsl", "float a() { return 1.0; }\n");
    dir.write("main.frag",
              "#version 330 core\n"
              "#include \"common/a.glsl\"\n"
              "#include \"common/a.glsl\"\n"
              "void main() {}\n");
    const gl::ShaderSource src = gl::ShaderSource::directory(dir.root.string());
    const auto e = src.load("main.frag", {"VARIANT_X", "N 3"});
    CHECK(e.files == std::vector<std::string>{"main.frag", "common/a.glsl"});
    CHECK(e.text ==
          "#version 330 core\n"
          "#define VARIANT_X\n"
          "#define N 3\n"
          "#line 2 0\n"
          "#line 1 1\n"
          "float a() { return 1.0; }\n"
          "#line 3 0\n"
          "#line 4 0\n"
          "void main() {}\n");
  }

  TEST_CASE("a shader without #version first, or a missing file, is an error naming it") {
    test::ScratchShaderDir dir("glsurf_shaders");
    dir.write("bad.frag", "void main() {}\n");
    const gl::ShaderSource src = gl::ShaderSource::directory(dir.root.string());
    CHECK_THROWS_WITH_AS(src.load("bad.frag"), doctest::Contains("bad.frag:1"), Error);
    CHECK_THROWS_WITH_AS(src.load("nope.frag"), doctest::Contains("nope.frag"), Error);
    // A missing include names the line that asks for it, through every level.
    dir.write("common/outer.glsl", "float b() { return 2.0; }\n#include \"common/missing.glsl\"\n");
    dir.write("includes.frag", "#version 330 core\n\n#include \"common/outer.glsl\"\nvoid main() {}\n");
    CHECK_THROWS_WITH_AS(
        src.load("includes.frag"),
        doctest::Contains(
            "common/missing.glsl (included from common/outer.glsl:2) (included from includes.frag:3)"),
        Error);
    CHECK_THROWS_WITH_AS(gl::ShaderSource::embedded().read("nope.frag"), doctest::Contains("nope.frag"),
                         Error);
  }

  TEST_CASE("every shader under shaders/ is embedded verbatim") {
    const gl::ShaderSource files = gl::ShaderSource::directory(GLSURF_TEST_SHADER_DIR);
    const gl::ShaderSource embedded = gl::ShaderSource::embedded();
    int count = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(GLSURF_TEST_SHADER_DIR)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel =
          std::filesystem::relative(entry.path(), GLSURF_TEST_SHADER_DIR).generic_string();
      CHECK_MESSAGE(embedded.read(rel) == files.read(rel), rel);
      ++count;
    }
    CHECK(count >= 8);
  }

  TEST_CASE("driver logs are mapped back to file and line") {
    const std::vector<std::string> files{"integral/x.frag", "common/y.glsl"};
    CHECK(gl::annotate_log("1:12(7): error: `foo' undeclared\n", files) ==
          "common/y.glsl:12:7: error: `foo' undeclared\n");
    CHECK(gl::annotate_log("0(5) : error C1008: undefined variable \"foo\"\n", files) ==
          "integral/x.frag:5: error C1008: undefined variable \"foo\"\n");
    CHECK(gl::annotate_log("ERROR: 1:3: 'missing_value' : undeclared identifier\n", files) ==
          "common/y.glsl:3: error: 'missing_value' : undeclared identifier\n");
    CHECK(gl::annotate_log("WARNING: 0:9: extension not supported\n", files) ==
          "integral/x.frag:9: warning: extension not supported\n");
    CHECK(gl::annotate_log("plain line\n", files) == "plain line\n");
  }

}  // TEST_SUITE
