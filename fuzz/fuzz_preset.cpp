// Presets of every lab ("rope?dim=64&base=1e4", pasted from anywhere): parse with the lab's
// codec, re-serialise, and the canonical form must parse to itself.
#include <cstdlib>

#include "core/labs.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    const std::string canonical = poslab::lab_preset_canonical(text);
    if (poslab::lab_preset_canonical(canonical) != canonical) std::abort();  // not a fixpoint
  });
  return 0;
}
