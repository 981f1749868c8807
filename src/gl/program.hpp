// A move-only linked GLSL program: one vertex and one fragment shader from a
// ShaderSource, with optional #define variants. Compile and link failures throw
// glsurf::Error whose first line names the shader file and line, followed by
// the driver's log with every location mapped back to file:line.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "gl/shader_source.hpp"

namespace glsurf::gl {

class Program {
 public:
  Program() = default;
  Program(const ShaderSource& source, const std::string& vertex_path, const std::string& fragment_path,
          const std::vector<std::string>& defines = {});
  Program(Program&& other) noexcept;
  Program& operator=(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program();

  unsigned id() const { return id_; }
  const std::string& label() const { return label_; }
  // Location of an active uniform, or -1 when the linker dropped it (a variant
  // that does not use it). Cached per program.
  int uniform_location(const std::string& name) const;

 private:
  void release();
  unsigned id_ = 0;
  std::string label_;
  std::unordered_map<std::string, int> locations_;
};

}  // namespace glsurf::gl
