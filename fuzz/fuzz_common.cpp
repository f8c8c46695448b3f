// The scratch directory of a harness process (fuzz_common.hpp): /dev/shm when it exists
// (no disk traffic at millions of executions), one per process.
#include <unistd.h>

#include <filesystem>

#include "fuzz/fuzz_common.hpp"

std::string fuzz_scratch_dir() {
  static const std::string dir = [] {
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    const auto d = base / ("poslab_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d, ec);
    return d.string();
  }();
  return dir;
}
