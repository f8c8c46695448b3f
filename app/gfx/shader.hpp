// GLSL programs built from the files in shaders/, which are embedded into the binary at
// build time (cmake/embed_shaders.cmake), so the app runs from any directory.
#pragma once
#include <string>
#include <string_view>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

// Source text of shaders/<file_name>; throws std::runtime_error if no such file was embedded.
std::string_view embedded_shader(std::string_view file_name);

class ShaderProgram {
 public:
  ShaderProgram() = default;
  // Compiles and links shaders/<vert> and shaders/<frag>; throws std::runtime_error with the
  // GL info log (and the file name) on failure.
  ShaderProgram(std::string_view vert_file, std::string_view frag_file);
  ShaderProgram(ShaderProgram&& o) noexcept : id_(o.id_) { o.id_ = 0; }
  ShaderProgram& operator=(ShaderProgram&& o) noexcept;
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;
  ~ShaderProgram();

  GLuint id() const { return id_; }
  GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }
  void use() const { glUseProgram(id_); }

 private:
  GLuint id_ = 0;
};

}  // namespace poslab::app::gfx
