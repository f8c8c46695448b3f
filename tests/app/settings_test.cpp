// Settings live under $XDG_CONFIG_HOME/poslab, survive a round trip, and a corrupt file
// is kept aside with a message instead of crashing or being silently overwritten.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/settings.hpp"

namespace fs = std::filesystem;
using namespace poslab::app;

namespace {
fs::path fresh_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("poslab_settings_test_" + std::string(name) +
                                                  "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("config and data dirs follow XDG variables, never the working directory") {
  const fs::path d = fresh_dir("xdg");
  ::setenv("XDG_CONFIG_HOME", (d / "cfg").c_str(), 1);
  ::setenv("XDG_DATA_HOME", (d / "data").c_str(), 1);
  CHECK(config_dir() == (d / "cfg" / "poslab").string());
  CHECK(data_dir() == (d / "data" / "poslab").string());
  CHECK(fs::is_directory(d / "cfg" / "poslab"));
  fs::remove_all(d);
}

TEST_CASE("settings round-trip through the file") {
  const fs::path d = fresh_dir("roundtrip");
  Settings s;
  s.dark_theme = false;
  s.ui_scale = 1.5f;
  s.open_labs = {"rope", "attention"};
  s.active_lab = "attention";
  s.last_preset["rope"] = "rope?dim=64&base=500000";
  save_settings(d.string(), s);
  std::string warning;
  const Settings r = load_settings(d.string(), warning);
  CHECK(warning.empty());
  CHECK(r.dark_theme == false);
  CHECK(r.ui_scale == 1.5f);
  CHECK(r.open_labs == s.open_labs);
  CHECK(r.last_preset.at("rope") == "rope?dim=64&base=500000");
  CHECK_FALSE(fs::exists(d / "settings.json.tmp"));
  fs::remove_all(d);
}

TEST_CASE("a corrupt settings file is kept aside and defaults are used") {
  const fs::path d = fresh_dir("corrupt");
  std::ofstream(d / "settings.json") << "{ \"dark_theme\": tru";
  std::string warning;
  const Settings r = load_settings(d.string(), warning);
  CHECK(r.dark_theme == Settings{}.dark_theme);
  CHECK_THAT(warning, Catch::Contains("settings.json") && Catch::Contains("corrupt"));
  bool backup = false;
  for (const auto& e : fs::directory_iterator(d))
    backup |= e.path().filename().string().rfind("settings.json.corrupt-", 0) == 0;
  CHECK(backup);
  CHECK_FALSE(fs::exists(d / "settings.json"));
  fs::remove_all(d);
}
