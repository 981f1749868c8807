// Where shader text comes from, and the small preprocessor glsurf adds on top
// of GLSL's own:
//
//   * files are named by their path under shaders/ ("integral/scan_up.frag");
//   * by default the text is the copy embedded at build time
//     (tools/embed_shaders.cmake), so the binary runs from anywhere;
//     GLSURF_SHADER_DIR=/path/to/shaders makes the loader read the files
//     instead, for editing shaders without rebuilding;
//   * `#include "common/x.glsl"` splices a file in, once per program;
//   * variants are made by `#define` lines inserted after `#version`.
//
// `#line L N` directives keep the driver's line numbers true: source-string
// number N is the index of the file in Expanded::files, so a compile log can be
// turned back into "integral/scan_up.frag:42: ..." (see annotate_log).
#pragma once

#include <string>
#include <vector>

namespace glsurf::gl {

struct EmbeddedShader {
  const char* path;
  const char* text;
};
const std::vector<EmbeddedShader>& embedded_shaders();  // generated at build time

class ShaderSource {
 public:
  static ShaderSource embedded();
  static ShaderSource directory(std::string dir);
  // GLSURF_SHADER_DIR if set, else the embedded copies.
  static ShaderSource from_environment();

  struct Expanded {
    std::string text;
    std::vector<std::string> files;  // source-string number -> path
  };
  Expanded load(const std::string& path, const std::vector<std::string>& defines = {}) const;
  std::string read(const std::string& path) const;  // raw text of one file
  std::string describe() const;

 private:
  std::string dir_;  // empty: embedded
};

// Rewrites "N:L(C): msg" (Mesa), "N(L) : msg" (NVIDIA) and "ERROR: N:L: msg"
// (AMD, Apple, Intel on Windows) lines of a driver log to "path:L: msg" using
// the file table of the expanded source.
std::string annotate_log(const std::string& log, const std::vector<std::string>& files);

}  // namespace glsurf::gl
