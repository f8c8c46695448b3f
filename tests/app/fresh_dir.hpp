// Test helper: an empty scratch folder of this process under the system's temporary folder,
// <tmp>/poslab_<prefix>_<name>_<pid> (emptied first if a crashed run left it behind).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace poslab::test {

inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() /
      ("poslab_" + prefix + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace poslab::test
