// App settings JSON (settings.json in the config directory): load_settings never throws;
// a corrupt file is moved aside and defaults are used.
#include <filesystem>
#include <fstream>

#include "app/settings.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dir = fuzz_scratch_dir();
  std::filesystem::remove_all(dir + "/x");
  std::filesystem::create_directories(dir + "/x");
  {
    std::ofstream out(dir + "/x/settings.json", std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::string warning;
  (void)poslab::app::load_settings(dir + "/x", warning);  // documented never to throw
  return 0;
}
