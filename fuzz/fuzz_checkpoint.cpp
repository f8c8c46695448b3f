// World-model checkpoints (safetensors, io/checkpoint/): parse the header and metadata of
// any bytes, then read the config as `wm info` does; every failure is a poslab::Error.
#include "fuzz/fuzz_common.hpp"
#include "io/checkpoint/safetensors.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  POSLAB_FUZZ_BODY({
    const poslab::io::SafetensorsFile f(fuzz_text(data, size), "fuzz.safetensors");
    for (const auto& t : f.tensors())
      if (t.end < t.begin) std::abort();  // a tensor must not end before it starts
    (void)poslab::io::wm_checkpoint_config(f);
  });
  return 0;
}
