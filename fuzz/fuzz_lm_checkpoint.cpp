// Language-model checkpoints (safetensors, io/checkpoint/lm_checkpoint): any bytes through
// lm_checkpoint_parse, which checks the format keys, the config and its parameter budget,
// the recorded scaling, step and param_count, every tensor against the config, then the
// values. Every failure is a poslab::Error; a parsed model is within its budget.
#include "fuzz/fuzz_common.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    const auto ck = poslab::io::lm_checkpoint_parse(text, "fuzz.safetensors");
    if (ck.params.size() > poslab::lm::LmConfig::max_params) std::abort();  // over budget
    if (ck.params.size() != poslab::lm::lm_param_count(ck.config)) std::abort();
  });
  return 0;
}
