// Every TOML PosLab reads besides the quizzes (fuzz_quiz_toml): the interface texts
// (io/i18n/ui_strings), the lessons catalog and the lessons lab's words (io/lessons), read
// from a file as the app reads them. The nesting scan (io/lessons/toml_depth) runs first and
// keeps toml++ from recursing past kTomlMaxDepth; bad input is a poslab::Error or a problem.
#include <filesystem>
#include <fstream>
#include <vector>

#include "fuzz/fuzz_common.hpp"
#include "io/i18n/ui_strings.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/toml_depth.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = fuzz_scratch_dir();
  const std::string text = fuzz_text(data, size);
  const poslab::io::TomlDepth d = poslab::io::toml_nesting_depth(text, 8);
  if (d.depth < 0 || d.depth > 9 || d.line < 0) std::abort();  // counts stop past the limit
  std::filesystem::create_directories(dir + "/en");
  for (const char* name : {"/en/texts.toml", "/catalog.toml", "/ui.toml"})
    std::ofstream(dir + name, std::ios::binary | std::ios::trunc) << text;
  std::vector<std::string> problems;
  POSLAB_FUZZ_BODY((void)poslab::io::UiStrings::load_lenient(dir, "en", problems));
  POSLAB_FUZZ_BODY((void)poslab::io::UiStrings::load(dir, "en"));
  POSLAB_FUZZ_BODY((void)poslab::io::load_catalog(dir));
  POSLAB_FUZZ_BODY((void)poslab::io::load_ui_text(dir));
  return 0;
}
