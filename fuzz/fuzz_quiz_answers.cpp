// Quiz answers as learners type them: choice letters ("a, c", "B") against 1..8 options,
// and numbers for numeric questions.
#include "core/common/preset.hpp"
#include "core/quiz/quiz.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int options = 1 + data[0] % 8;
  const std::string text = fuzz_text(data + 1, size - 1);
  POSLAB_FUZZ_BODY({
    for (int i : poslab::quiz_parse_choices(text, options))
      if (i < 0 || i >= options) std::abort();  // an index the question does not have
  });
  POSLAB_FUZZ_BODY((void)poslab::parse_double(text, "answer"));
  return 0;
}
