// App settings JSON (settings.json in the config directory), parsed from memory with the
// parser load_settings uses (the file handling around it: tests/app/settings_test.cpp).
// Bad text is a nlohmann::json::exception (load_settings turns it into "moved aside,
// defaults"), never another exception or a crash; whatever parses must survive a
// save/load round trip unchanged.
#include <nlohmann/json.hpp>

#include "app/settings.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  poslab::app::Settings s;
  try {
    s = poslab::app::settings_from_json(fuzz_text(data, size));
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  const std::string saved = poslab::app::settings_to_json(s);
  // The saved form must read back (no exception) to the same settings.
  if (poslab::app::settings_to_json(poslab::app::settings_from_json(saved)) != saved) std::abort();
  return 0;
}
