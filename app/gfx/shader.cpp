// Compiling the embedded GLSL files into programs (see shader.hpp).
#include "app/gfx/shader.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace poslab::app::gfx {

const std::vector<std::pair<std::string_view, std::string_view>>&
embedded_shader_table();  // generated

std::string_view embedded_shader(std::string_view file_name) {
  for (const auto& [name, source] : embedded_shader_table())
    if (name == file_name) return source;
  throw std::runtime_error("shader shaders/" + std::string(file_name) +
                           " was not embedded at build time");
}

namespace {

GLuint compile(GLenum kind, std::string_view file_name) {
  const std::string_view src = embedded_shader(file_name);
  const GLuint s = glCreateShader(kind);
  const char* text = src.data();
  const GLint len = static_cast<GLint>(src.size());
  glShaderSource(s, 1, &text, &len);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw std::runtime_error("shaders/" + std::string(file_name) + " does not compile: " + log);
  }
  return s;
}

}  // namespace

ShaderProgram::ShaderProgram(std::string_view vert_file, std::string_view frag_file) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vert_file);
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, frag_file);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glLinkProgram(id_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(id_, sizeof log, nullptr, log);
    glDeleteProgram(id_);
    id_ = 0;
    throw std::runtime_error("shaders " + std::string(vert_file) + " + " + std::string(frag_file) +
                             " do not link: " + log);
  }
}

ShaderProgram& ShaderProgram::operator=(ShaderProgram&& o) noexcept {
  if (this != &o) {
    if (id_) glDeleteProgram(id_);
    id_ = std::exchange(o.id_, 0);
  }
  return *this;
}

ShaderProgram::~ShaderProgram() {
  if (id_) glDeleteProgram(id_);
}

}  // namespace poslab::app::gfx
