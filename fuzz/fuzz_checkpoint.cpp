// World-model checkpoints (safetensors, io/checkpoint/): parse the header and metadata of
// any bytes, then everything wm_checkpoint_peek checks without reading tensors (format,
// config and its budget, step, param_count, every tensor against the config) and the
// recorded training settings that `wm eval` and `wm train --resume` read. Every failure is
// a poslab::Error; the dictionary (fuzz/dict/checkpoint.dict) carries deep-nesting tokens
// and the seeds nest 20 and 1,000 deep (issue 29: a 100,000-deep shape crashed the reader).
#include "fuzz/fuzz_common.hpp"
#include "io/checkpoint/safetensors.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  if (poslab::io::json_nesting_depth(text, 1 << 20) < 0) std::abort();  // depth never < 0
  POSLAB_FUZZ_BODY({
    const poslab::io::SafetensorsFile f(text, "fuzz.safetensors");
    for (const auto& t : f.tensors())
      if (t.end < t.begin) std::abort();  // a tensor must not end before it starts
    POSLAB_FUZZ_BODY({
      poslab::wm::WmDataParams dp;
      poslab::nn::AdamWParams ap;
      (void)poslab::io::wm_recorded_data(f.metadata(), f.path());
      poslab::io::wm_recorded_training(f.metadata(), f.path(), dp, ap);
    });
    const auto peek = poslab::io::wm_checkpoint_inspect(f);
    if (peek.param_count > poslab::wm::WmConfig::max_params) std::abort();  // over budget
  });
  return 0;
}
