// The attention lab's sentence tokenizer (strict UTF-8): every token it returns is
// non-empty and the tokens are pieces of the input in order.
#include <cstdlib>

#include "core/attention/tokenizer.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    size_t from = 0;
    for (const std::string& t : poslab::tokenize_sentence(text, 256)) {
      if (t.empty()) std::abort();
      const size_t at = text.find(t, from);
      if (at == std::string::npos) std::abort();
      from = at + t.size();
    }
  });
  return 0;
}
