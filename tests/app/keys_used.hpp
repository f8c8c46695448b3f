// Test helper: the interface keys source files name, found by regular expressions (group 1
// of each match), so a test can check every one exists in the English texts.
#pragma once
#include <fstream>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace poslab::test {

// The interface texts of every language (assets/i18n/<lang>/*.toml) in the source tree.
inline const std::string kI18nDir = POSLAB_TEST_SOURCE_DIR "/assets/i18n";

// Group 1 of every match of `patterns` in `files` (paths relative to the source tree).
inline std::set<std::string> keys_used(std::initializer_list<const char*> files,
                                       std::initializer_list<const std::regex*> patterns) {
  std::set<std::string> used;
  for (const char* file : files) {
    INFO("file " << file);
    std::ifstream in(std::string(POSLAB_TEST_SOURCE_DIR "/") + file);
    std::stringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    CHECK(!text.empty());
    for (const std::regex* re : patterns)
      for (auto it = std::sregex_iterator(text.begin(), text.end(), *re);
           it != std::sregex_iterator(); ++it)
        used.insert((*it)[1]);
  }
  return used;
}

}  // namespace poslab::test
