# Script mode: cmake -DOUT=<file.cpp> -DFILES="a;b;c" [-DGLES=ON] -P embed_shaders.cmake
# Writes a C++ file defining poslab::app::gfx::embedded_shader_table(): every shader's
# file name and its source as a raw string literal, so the binary needs no shaders/ dir.
# GLES=ON (the web build): "#version 330 core" becomes "#version 300 es" (WebGL 2) with
# high default precisions, moved to the first line as GLSL ES wants it; the GLSL of the
# shaders in shaders/ is otherwise the same in both.
set(body "")
foreach(path IN LISTS FILES)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" src)
  if(GLES)
    string(REPLACE "#version 330 core\n" "" src "${src}")
    set(src "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n${src}")
  endif()
  string(APPEND body "    {\"${name}\", R\"poslab_glsl(${src})poslab_glsl\"},\n")
endforeach()
file(WRITE "${OUT}.new" "// Generated from shaders/ by cmake/embed_shaders.cmake. Do not edit.\n#include <string_view>\n#include <utility>\n#include <vector>\nnamespace poslab::app::gfx {\nconst std::vector<std::pair<std::string_view, std::string_view>>& embedded_shader_table() {\n  static const std::vector<std::pair<std::string_view, std::string_view>> table{\n${body}  };\n  return table;\n}\n}  // namespace poslab::app::gfx\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
