# Script mode: cmake -DOUT=<file.cpp> -DFILES="a;b;c" -P embed_shaders.cmake
# Writes a C++ file defining poslab::app::gfx::embedded_shader_table(): every shader's
# file name and its source as a raw string literal, so the binary needs no shaders/ dir.
set(body "")
foreach(path IN LISTS FILES)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" src)
  string(APPEND body "    {\"${name}\", R\"poslab_glsl(${src})poslab_glsl\"},\n")
endforeach()
file(WRITE "${OUT}.new" "// Generated from shaders/ by cmake/embed_shaders.cmake. Do not edit.\n#include <string_view>\n#include <utility>\n#include <vector>\nnamespace poslab::app::gfx {\nconst std::vector<std::pair<std::string_view, std::string_view>>& embedded_shader_table() {\n  static const std::vector<std::pair<std::string_view, std::string_view>> table{\n${body}  };\n  return table;\n}\n}  // namespace poslab::app::gfx\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
