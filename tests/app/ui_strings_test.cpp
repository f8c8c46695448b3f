// The interface strings: English and Chinese files have the same keys, every key the shell,
// the welcome page and the labs ask for exists, and a missing translation falls back to English.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/common/errors.hpp"
#include "io/i18n/ui_strings.hpp"
#include "tests/app/keys_used.hpp"

namespace fs = std::filesystem;
using poslab::io::UiStrings;

using poslab::test::kI18nDir;

TEST_CASE("English and Chinese interface files have the same keys") {
  std::set<std::string> en_files, zh_files;
  for (const auto& e : fs::directory_iterator(kI18nDir + "/en"))
    en_files.insert(e.path().filename());
  for (const auto& e : fs::directory_iterator(kI18nDir + "/zh"))
    zh_files.insert(e.path().filename());
  CHECK(en_files == zh_files);
  CHECK(en_files.count("shell.toml") == 1);
  std::size_t total = 0;
  for (const auto& name : en_files) {
    INFO("file " << name);
    auto en = UiStrings::file_keys(kI18nDir + "/en/" + name);
    auto zh = UiStrings::file_keys(kI18nDir + "/zh/" + name);
    total += en.size();
    std::sort(en.begin(), en.end());
    std::sort(zh.begin(), zh.end());
    for (const auto& k : en) {
      INFO("key " << k);
      CHECK(std::binary_search(zh.begin(), zh.end(), k));
    }
    for (const auto& k : zh) {
      INFO("key " << k);
      CHECK(std::binary_search(en.begin(), en.end(), k));
    }
  }
  CHECK(total > 40);
}

TEST_CASE("every key the shell and the welcome page use exists in English") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const std::regex call(R"re(tr\("([a-z_]+\.[a-z_.]+)"\))re");
  const std::regex literal(R"re("(welcome\.[a-z_]+)")re");
  const std::set<std::string> used = poslab::test::keys_used(
      {"app/app_state.cpp", "app/panels/welcome_panel.cpp", "app/export/share_ui.cpp",
       "app/widgets/control_column.cpp", "app/widgets/recorder.cpp", "app/file_picker.cpp"},
      {&call, &literal});
  CHECK(used.size() > 25);
  for (const auto& k : used) {
    INFO("key " << k);
    CHECK(en.has(k));
  }
}

TEST_CASE("every key the labs use exists in English (a typo'd key fails here)") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  // Keys of the labs' own files, passed to tr(), tr_id() or held in tables.
  const std::regex literal(R"re("((wheels|attention|kv|arena|lessons)\.[a-z_][a-z0-9_.]*)")re");
  const std::set<std::string> used = poslab::test::keys_used(
      {"app/panels/rope_wheels_panel.cpp", "app/widgets/rope_controls.cpp",
       "app/panels/attention_panel.cpp", "app/panels/attention_views.cpp",
       "app/panels/kv_panel.cpp", "app/panels/kv_views.cpp", "app/panels/arena_panel.cpp",
       "app/panels/arena_help.hpp", "app/panels/arena_export.cpp", "app/panels/lessons_panel.cpp"},
      {&literal});
  CHECK(used.size() > 200);
  for (const auto& k : used) {
    INFO("key " << k);
    CHECK(en.has(k));
  }
}

TEST_CASE("a missing translation falls back to English, then to the key") {
  const fs::path d = fs::temp_directory_path() / ("poslab_i18n_" + std::to_string(::getpid()));
  fs::create_directories(d / "en");
  fs::create_directories(d / "xx");
  std::ofstream(d / "en" / "a.toml") << "[menu]\nfile = \"File\"\n";
  std::ofstream(d / "en" / "b.toml") << "[menu]\nquit = \"Quit\"\n";
  std::ofstream(d / "xx" / "a.toml") << "[menu]\nfile = \"文件\"\n";
  const UiStrings s = UiStrings::load(d.string(), "xx");
  CHECK(s.get("menu.file") == "文件");
  CHECK(s.get("menu.quit") == "Quit");
  CHECK(s.get("menu.nothing") == "menu.nothing");
  CHECK_THROWS_WITH(UiStrings::load(d.string(), "yy"), Catch::Contains("yy"));
  std::ofstream(d / "en" / "c.toml") << "[menu]\nfile = \"File again\"\n";
  CHECK_THROWS_WITH(UiStrings::load(d.string(), "en"),
                    Catch::Contains("c.toml") && Catch::Contains("a.toml"));
  fs::remove(d / "en" / "c.toml");
  std::ofstream(d / "en" / "a.toml") << "[menu]\nfile = 3\n";
  CHECK_THROWS_WITH(UiStrings::load(d.string(), "en"),
                    Catch::Contains("a.toml") && Catch::Contains("must be text"));
  fs::remove_all(d);
}
