// The scratch directory of a harness process (fuzz_common.hpp): /dev/shm when it exists
// (no disk traffic at millions of executions), one per process, removed when the process
// exits normally (scripts/fuzz.sh removes those of processes that crashed or were killed).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "fuzz/fuzz_common.hpp"

std::string fuzz_scratch_dir() {
  // Never destroyed, so the exit handler below can still read it.
  static const std::string* const dir = new std::string([] {
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    const auto d = base / ("poslab_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d, ec);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(fuzz_scratch_dir(), ignored);
    });
    return d.string();
  }());
  return *dir;
}
