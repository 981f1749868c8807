#include "gl/shader_source.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "gl/error.hpp"

namespace glsurf::gl {

ShaderSource ShaderSource::embedded() { return ShaderSource(); }

ShaderSource ShaderSource::directory(std::string dir) {
  ShaderSource s;
  s.dir_ = std::move(dir);
  if (s.dir_.empty()) s.dir_ = ".";
  return s;
}

ShaderSource ShaderSource::from_environment() {
  const char* dir = std::getenv("GLSURF_SHADER_DIR");
  return (dir && *dir) ? directory(dir) : embedded();
}

std::string ShaderSource::describe() const {
  return dir_.empty() ? std::string("embedded shaders") : "shaders from " + dir_;
}

std::string ShaderSource::read(const std::string& path) const {
  if (dir_.empty()) {
    for (const EmbeddedShader& s : embedded_shaders()) {
      if (path == s.path) return s.text;
    }
    throw Error("shader '" + path + "' is not among the embedded shaders");
  }
  std::ifstream in(dir_ + "/" + path, std::ios::binary);
  if (!in) throw Error("cannot read shader file " + dir_ + "/" + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

const std::regex& include_line() {
  static const std::regex re(R"re(^\s*#\s*include\s+"([^"]+)"\s*$)re");
  return re;
}

void expand(const ShaderSource& source, const std::string& path, int depth, ShaderSource::Expanded& out,
            std::string& text) {
  if (depth > 16) throw Error("shader includes nested too deeply at " + path);
  const int file_id = static_cast<int>(out.files.size());
  out.files.push_back(path);
  std::istringstream in(source.read(path));
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::smatch m;
    if (std::regex_match(line, m, include_line())) {
      const std::string included = m[1].str();
      bool seen = false;
      for (const std::string& f : out.files) seen = seen || f == included;
      if (!seen) {
        text += "#line 1 " + std::to_string(out.files.size()) + "\n";
        try {
          expand(source, included, depth + 1, out, text);
        } catch (const Error& e) {
          throw Error(std::string(e.what()) + " (included from " + path + ":" + std::to_string(line_number) +
                      ")");
        }
      }
      text += "#line " + std::to_string(line_number + 1) + " " + std::to_string(file_id) + "\n";
      continue;
    }
    text += line;
    text += '\n';
  }
}

}  // namespace

ShaderSource::Expanded ShaderSource::load(const std::string& path,
                                          const std::vector<std::string>& defines) const {
  Expanded out;
  std::string body;
  expand(*this, path, 0, out, body);
  // Pull the #version line to the top, then the variant #defines, then resume
  // at line 2 of the main file (source string 0).
  const size_t end = body.find('\n');
  const std::string first = body.substr(0, end);
  if (first.rfind("#version", 0) != 0) {
    throw Error(path + ":1: a shader must start with its #version line");
  }
  out.text = first + "\n";
  for (const std::string& d : defines) out.text += "#define " + d + "\n";
  out.text += "#line 2 0\n";
  out.text += body.substr(end + 1);
  return out;
}

std::string annotate_log(const std::string& log, const std::vector<std::string>& files) {
  static const std::regex mesa(R"(^(\d+):(\d+)\((\d+)\): (.*)$)");
  static const std::regex nvidia(R"(^(\d+)\((\d+)\) ?: (.*)$)");
  static const std::regex amd(
      R"(^(ERROR|WARNING): (\d+):(\d+): (.*)$)");  // also Apple's and Intel's on Windows
  std::istringstream in(log);
  std::string line, out;
  auto file_name = [&](const std::string& id) {
    const size_t i = std::stoul(id);
    return i < files.size() ? files[i] : "source " + id;
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, mesa)) {
      line = file_name(m[1]) + ":" + m[2].str() + ":" + m[3].str() + ": " + m[4].str();
    } else if (std::regex_match(line, m, nvidia)) {
      line = file_name(m[1]) + ":" + m[2].str() + ": " + m[3].str();
    } else if (std::regex_match(line, m, amd)) {
      line = file_name(m[2]) + ":" + m[3].str() + ": " + (m[1].str() == "ERROR" ? "error: " : "warning: ") +
             m[4].str();
    }
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

}  // namespace glsurf::gl
