// Lesson progress JSON (edited by hand, copied between machines): parse; whatever parses
// must survive a save/load round trip unchanged.
#include "fuzz/fuzz_common.hpp"
#include "io/lessons/progress_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    const poslab::Progress p = poslab::io::progress_from_json(text, "progress.json");
    const std::string saved = poslab::io::progress_to_json(p);
    if (poslab::io::progress_to_json(poslab::io::progress_from_json(saved, "saved")) != saved)
      std::abort();  // the saved form does not read back to itself
  });
  return 0;
}
