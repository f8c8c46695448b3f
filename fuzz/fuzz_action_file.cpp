// Boost and Broadside action files (sim --actions): every accepted value is in range.
#include "cli/bnb_input.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    for (const auto& step : poslab::cli::parse_action_json(text, "actions.json"))
      for (const auto& a : step)
        if (a.power >= poslab::bnb::kActionSizes[0] || a.turn >= poslab::bnb::kActionSizes[1] ||
            a.shoot >= poslab::bnb::kActionSizes[2])
          std::abort();
  });
  return 0;
}
