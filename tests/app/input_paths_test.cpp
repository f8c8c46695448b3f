// Input paths of the app that must never abort the start or lose data (docs/reliability.md):
// interface texts that are missing or corrupt fall back to English with a problem naming the
// file; settings holding bytes that are not UTF-8 are still saved, and such a file on disk
// is kept aside.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "app/settings.hpp"
#include "io/i18n/ui_strings.hpp"
#include "tests/app/fresh_dir.hpp"

namespace fs = std::filesystem;
using poslab::io::UiStrings;

namespace {

bool any_names(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("corrupt or missing interface texts fall back to English and name the file") {
  const fs::path d = poslab::test::fresh_dir("input_paths", "i18n");
  fs::create_directories(d / "en");
  fs::create_directories(d / "zh");
  std::ofstream(d / "en" / "a.toml") << "[menu]\nfile = \"File\"\n";
  std::ofstream(d / "en" / "b.toml") << "[menu]\nquit = \"Quit\"\n";
  std::ofstream(d / "en" / "c.toml") << "[help]\nabout = \"About\"\n";
  std::ofstream(d / "zh" / "a.toml") << "[menu]\nfile = \"文件\"\n";
  // Invalid UTF-8 inside a string, a syntax error, a FIFO (must not block the start).
  std::ofstream(d / "zh" / "b.toml") << "[menu]\nquit = \"\xff\xfe\"\n";
  std::ofstream(d / "zh" / "c.toml") << "[help\nabout = \n";
  REQUIRE(::mkfifo((d / "zh" / "d.toml").c_str(), 0600) == 0);

  std::vector<std::string> problems;
  const UiStrings s = UiStrings::load_lenient(d.string(), "zh", problems);
  CHECK(s.get("menu.file") == "文件");  // the good file is used
  CHECK(s.get("menu.quit") == "Quit");  // the others fall back to English
  CHECK(s.get("help.about") == "About");
  CHECK(problems.size() == 3);
  CHECK(any_names(problems, "b.toml"));
  CHECK(any_names(problems, "c.toml"));
  CHECK(any_names(problems, "d.toml"));
  CHECK_THROWS(UiStrings::load(d.string(), "zh"));  // the strict loader still refuses

  // A language folder that is missing: English alone, one problem naming the folder.
  problems.clear();
  const UiStrings missing = UiStrings::load_lenient(d.string(), "xx", problems);
  CHECK(missing.get("menu.quit") == "Quit");
  REQUIRE(problems.size() == 1);
  CHECK(any_names(problems, "xx"));

  // A key defined twice: the first file's text is kept, the second definition reported.
  std::ofstream(d / "en" / "e.toml") << "[menu]\nfile = \"File again\"\n";
  problems.clear();
  const UiStrings twice = UiStrings::load_lenient(d.string(), "en", problems);
  CHECK(twice.get("menu.file") == "File");
  CHECK(any_names(problems, "e.toml"));

  // Even English corrupt or gone: no exception, the keys themselves are shown.
  fs::remove_all(d / "en");
  problems.clear();
  const UiStrings none = UiStrings::load_lenient(d.string(), "en", problems);
  CHECK(none.get("menu.quit") == "menu.quit");
  CHECK(problems.size() == 1);
  fs::remove_all(d);
}

TEST_CASE("settings holding bytes that are not UTF-8 are saved, the other settings kept") {
  const fs::path d = poslab::test::fresh_dir("input_paths", "utf8");
  poslab::app::Settings s;
  s.dark_theme = false;
  s.window_width = 1234;
  s.export_dir = "/tmp/caf\xe9";  // a Latin-1 file name: any bytes are valid on Linux
  s.last_preset["rope"] = "rope?dim=64&note=\xff";
  REQUIRE_NOTHROW(poslab::app::save_settings(d.string(), s));
  std::string warning;
  const poslab::app::Settings back = poslab::app::load_settings(d.string(), warning);
  CHECK(warning.empty());
  CHECK(back.dark_theme == false);
  CHECK(back.window_width == 1234);
  CHECK(back.export_dir == "/tmp/caf\xef\xbf\xbd");  // U+FFFD: a folder that is not there
  CHECK(back.last_preset.at("rope") == "rope?dim=64&note=\xef\xbf\xbd");

  // A settings file with raw invalid UTF-8 on disk is corrupt: kept aside, defaults used.
  std::ofstream(d / "settings.json") << "{\"language\": \"\xc0\xaf\"}";
  warning.clear();
  const poslab::app::Settings fresh = poslab::app::load_settings(d.string(), warning);
  CHECK(!warning.empty());
  CHECK(fresh.language == poslab::app::Settings{}.language);
  CHECK(!fs::exists(d / "settings.json"));
  bool kept = false;
  for (const auto& e : fs::directory_iterator(d))
    kept |= e.path().filename().string().rfind("settings.json.corrupt-", 0) == 0;
  CHECK(kept);
  fs::remove_all(d);
}
