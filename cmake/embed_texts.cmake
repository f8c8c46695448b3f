# Script mode: cmake -DOUT=<file.cpp> -DFILES="a;b;c" -P embed_texts.cmake
# Writes a C++ file defining poslab::app::embedded_english_texts(): each file's name and its
# text as a raw string literal (assets/i18n/en/*.toml), so a wrong data folder still shows the
# English words, never the text keys (app_state.cpp's set_language).
set(body "")
foreach(path IN LISTS FILES)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" src)
  string(APPEND body "    {\"${name}\", R\"poslab_toml(${src})poslab_toml\"},\n")
endforeach()
file(WRITE "${OUT}.new" "// Generated from assets/i18n/en by cmake/embed_texts.cmake. Do not edit.\n#include <string_view>\n#include <utility>\n#include <vector>\nnamespace poslab::app {\nconst std::vector<std::pair<std::string_view, std::string_view>>& embedded_english_texts() {\n  static const std::vector<std::pair<std::string_view, std::string_view>> table{\n${body}  };\n  return table;\n}\n}  // namespace poslab::app\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
