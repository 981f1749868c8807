#include "gl/program.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gl/error.hpp"
#include "gl/gl.hpp"

namespace glsurf::gl {

namespace {

// The info log of a shader or a program (the two differ only in the getters).
std::string info_log(GLuint object, void (*get_iv)(GLuint, GLenum, GLint*),
                     void (*get_log)(GLuint, GLsizei, GLsizei*, GLchar*)) {
  GLint length = 0;
  get_iv(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
  GLsizei written = 0;
  get_log(object, static_cast<GLsizei>(log.size()), &written, log.data());
  log.resize(static_cast<size_t>(written));
  return log;
}

std::string variant_suffix(const std::vector<std::string>& defines) {
  std::string s;
  for (const std::string& d : defines) s += (s.empty() ? " [" : ", ") + d;
  return s.empty() ? s : s + "]";
}

GLuint compile(const ShaderSource& source, GLenum stage, const std::string& path,
               const std::vector<std::string>& defines) {
  const ShaderSource::Expanded expanded = source.load(path, defines);
  require_current_context("shader " + path);
  GLuint shader = glCreateShader(stage);
  if (shader == 0) throw Error("cannot create shader " + path + ": glCreateShader failed");
  const char* text = expanded.text.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = annotate_log(info_log(shader, glGetShaderiv, glGetShaderInfoLog), expanded.files);
    glDeleteShader(shader);
    // The headline is the first message that is an error (a warning may come
    // before it); the driver's other messages follow it.
    std::vector<std::string> messages;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
      if (line.find_first_not_of(' ') != std::string::npos) messages.push_back(line);
    // annotate_log's forms: "file:L:C: error: ..." (Mesa, AMD), "file:L: error C1008: ..." (NVIDIA).
    const auto is_error = [](const std::string& line) {
      return line.find(": error") != std::string::npos || line.rfind("ERROR", 0) == 0 ||
             line.rfind("error", 0) == 0;
    };
    auto headline = std::find_if(messages.begin(), messages.end(), is_error);
    if (headline == messages.end()) headline = messages.begin();  // no error line: the first message
    std::string rest;
    for (auto m = messages.begin(); m != messages.end(); ++m)
      if (m != headline) rest += "\n" + *m;
    const std::string first = messages.empty() ? path : *headline;
    throw Error("shader compile failed: " + first + variant_suffix(defines) + rest);
  }
  return shader;
}

}  // namespace

Program::Program(const ShaderSource& source, const std::string& vertex_path, const std::string& fragment_path,
                 const std::vector<std::string>& defines)
    : label_(fragment_path + variant_suffix(defines)) {
  GLuint vs = compile(source, GL_VERTEX_SHADER, vertex_path, defines);
  GLuint fs = 0;
  try {
    fs = compile(source, GL_FRAGMENT_SHADER, fragment_path, defines);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glLinkProgram(id_);
  glDetachShader(id_, vs);
  glDetachShader(id_, fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(id_, glGetProgramiv, glGetProgramInfoLog);
    release();
    throw Error("shader link failed: " + vertex_path + " + " + label_ + "\n" + log);
  }
  if (GLEW_KHR_debug) glObjectLabel(GL_PROGRAM, id_, -1, label_.c_str());

  GLint count = 0;
  glGetProgramiv(id_, GL_ACTIVE_UNIFORMS, &count);
  for (GLint i = 0; i < count; ++i) {
    char name[256];
    GLsizei length = 0;
    GLint size = 0;
    GLenum type = 0;
    glGetActiveUniform(id_, static_cast<GLuint>(i), sizeof name, &length, &size, &type, name);
    std::string key(name, static_cast<size_t>(length));
    const GLint location = glGetUniformLocation(id_, name);
    // Arrays are reported as "name[0]"; let callers use the bare name too.
    if (key.size() > 3 && key.compare(key.size() - 3, 3, "[0]") == 0) {
      locations_[key.substr(0, key.size() - 3)] = location;
    }
    locations_[key] = location;
  }
  try {
    check_gl_errors("linking " + label_);
  } catch (...) {
    release();
    throw;
  }
}

Program::Program(Program&& other) noexcept
    : id_(std::exchange(other.id_, 0)),
      label_(std::move(other.label_)),
      locations_(std::move(other.locations_)) {}

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    release();
    id_ = std::exchange(other.id_, 0);
    label_ = std::move(other.label_);
    locations_ = std::move(other.locations_);
  }
  return *this;
}

Program::~Program() { release(); }

void Program::release() {
  if (id_) glDeleteProgram(id_);
  id_ = 0;
}

int Program::uniform_location(const std::string& name) const {
  const auto it = locations_.find(name);
  return it == locations_.end() ? -1 : it->second;
}

}  // namespace glsurf::gl
