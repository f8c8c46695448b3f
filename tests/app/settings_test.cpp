// Settings live under $XDG_CONFIG_HOME/poslab, survive a round trip, and a corrupt file
// is kept aside with a message instead of crashing or being silently overwritten.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/settings.hpp"
#include "tests/app/fresh_dir.hpp"

namespace fs = std::filesystem;
using namespace poslab::app;

TEST_CASE("config and data dirs follow XDG variables, never the working directory") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "xdg");
  ::setenv("XDG_CONFIG_HOME", (d / "cfg").c_str(), 1);
  ::setenv("XDG_DATA_HOME", (d / "data").c_str(), 1);
  CHECK(config_dir() == (d / "cfg" / "poslab").string());
  CHECK(data_dir() == (d / "data" / "poslab").string());
  CHECK(fs::is_directory(d / "cfg" / "poslab"));
  fs::remove_all(d);
}

TEST_CASE("the first export folder is the XDG pictures folder, else HOME") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "pictures");
  fs::create_directories(d / "home" / "Bilder");
  fs::create_directories(d / "cfg");
  const char* home_was = std::getenv("HOME");
  const std::string saved_home = home_was ? home_was : "";
  ::setenv("HOME", (d / "home").c_str(), 1);
  ::setenv("XDG_CONFIG_HOME", (d / "cfg").c_str(), 1);
  ::unsetenv("XDG_PICTURES_DIR");
  CHECK(pictures_dir() == (d / "home").string());  // no user-dirs.dirs: HOME
  // What xdg-user-dirs-update writes (a localised name, $HOME-relative).
  std::ofstream(d / "cfg" / "user-dirs.dirs")
      << "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\n"
         "XDG_PICTURES_DIR=\"$HOME/Bilder\"\n";
  CHECK(pictures_dir() == (d / "home" / "Bilder").string());
  fs::create_directories(d / "pics");
  ::setenv("XDG_PICTURES_DIR", (d / "pics").c_str(), 1);  // the environment wins
  CHECK(pictures_dir() == (d / "pics").string());
  ::setenv("XDG_PICTURES_DIR", (d / "gone").c_str(), 1);  // a folder that does not exist
  CHECK(pictures_dir() == (d / "home").string());
  ::unsetenv("XDG_PICTURES_DIR");
  ::setenv("HOME", saved_home.c_str(), 1);
  fs::remove_all(d);
}

TEST_CASE("settings round-trip through the file") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "roundtrip");
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

TEST_CASE("window sizes and scales outside any int or float are clamped, not undefined") {
  // fuzz_settings found get<int>() of 1e10 (UBSan: outside the range of int); 4294967616
  // used to wrap to 320. Seeds: fuzz/corpus/settings/huge_sizes.
  const Settings s =
      settings_from_json(R"({"window_width": 1e10, "window_height": -1e300, "ui_scale": 1e300})");
  CHECK(s.window_width == 16384);
  CHECK(s.window_height == 240);
  CHECK(s.ui_scale == 0.0f);
  const Settings w = settings_from_json(R"({"window_width": 4294967616, "window_height": 800.9})");
  CHECK(w.window_width == 16384);
  CHECK(w.window_height == 800);
  // The in-memory writer and parser are load_settings' and save_settings': a fixpoint.
  const std::string saved = settings_to_json(w);
  CHECK(settings_to_json(settings_from_json(saved)) == saved);
  CHECK_THROWS_AS(settings_from_json(R"({"window_width": "wide"})"), nlohmann::json::exception);
}

TEST_CASE("a corrupt settings file is kept aside and defaults are used") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "corrupt");
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

TEST_CASE("a settings path that is not a regular file is never opened") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "special");
  std::string warning;
  SECTION("a FIFO (opening it would block)") {
    REQUIRE(::mkfifo((d / "settings.json").c_str(), 0600) == 0);
    const Settings r = load_settings(d.string(), warning);
    CHECK_THAT(warning, Catch::Contains("FIFO"));
    CHECK(r.active_lab == Settings{}.active_lab);
    CHECK(fs::is_fifo(d / "settings.json"));  // left where it is
  }
  SECTION("a symlink loop") {
    fs::create_symlink("settings.json", d / "settings.json");
    load_settings(d.string(), warning);
    CHECK_THAT(warning, Catch::Contains("cannot be examined"));
  }
  SECTION("a directory, which also cannot be replaced by a save") {
    fs::create_directories(d / "settings.json");
    load_settings(d.string(), warning);
    CHECK_THAT(warning, Catch::Contains("directory"));
    CHECK_THROWS(save_settings(d.string(), Settings{}));
  }
  SECTION("a name too long for the file system") {
    const std::string long_dir = (d / std::string(300, 'x')).string();
    load_settings(long_dir, warning);
    CHECK_THAT(warning, Catch::Contains("cannot be examined"));
  }
  fs::remove_all(d);
}

TEST_CASE("the start marker tells a crashed start from a clean one and from a running one") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "marker");
  std::string marker;
  CHECK_FALSE(start_marker_begin(d.string(), marker));  // first start ever
  CHECK(fs::exists(marker));
  CHECK(marker == (d / ("running." + std::to_string(::getpid()))).string());
  start_marker_end(marker);
  CHECK_FALSE(fs::exists(marker));
  CHECK_FALSE(start_marker_begin(d.string(), marker));  // after a clean end
  start_marker_end(marker);
  // A marker whose process is gone: that start crashed or was killed. It is consumed.
  std::ofstream(d / "running.999999999") << "999999999\n";
  CHECK(start_marker_begin(d.string(), marker));
  CHECK_FALSE(fs::exists(d / "running.999999999"));
  start_marker_end(marker);
  // A marker of a live process (here: our parent) is another PosLab window, not a crash.
  const fs::path other = d / ("running." + std::to_string(::getppid()));
  std::ofstream(other) << ::getppid() << "\n";
  CHECK_FALSE(start_marker_begin(d.string(), marker));
  // Two windows: the first to end removes only its own marker (issue 29).
  start_marker_end(marker);
  CHECK(fs::exists(other));
  fs::remove(other);
  // The single marker of older versions: read as before.
  std::ofstream(d / "running.pid") << "999999999\n";
  CHECK(start_marker_begin(d.string(), marker));
  CHECK_FALSE(fs::exists(d / "running.pid"));
  start_marker_end(marker);
  std::ofstream(d / "running.pid") << ::getppid() << "\n";
  CHECK_FALSE(start_marker_begin(d.string(), marker));
  start_marker_end(marker);
  fs::remove(d / "running.pid");
  // A torn marker counts as unfinished.
  std::ofstream(d / "running.pid") << "";
  CHECK(start_marker_begin(d.string(), marker));
  start_marker_end(marker);
  fs::remove_all(d);
}

TEST_CASE("temporary files of killed atomic writes are removed, live ones kept") {
  const fs::path d = poslab::test::fresh_dir("settings_test", "tmpfiles");
  std::ofstream(d / "settings.json.tmp.999999999") << "{";
  std::ofstream(d / ("settings.json.tmp." + std::to_string(::getpid()))) << "{";
  std::ofstream(d / "notes.tmp.txt") << "x";  // not an atomic-write temporary
  CHECK(remove_stale_temp_files(d.string()) == 1);
  CHECK_FALSE(fs::exists(d / "settings.json.tmp.999999999"));
  CHECK(fs::exists(d / ("settings.json.tmp." + std::to_string(::getpid()))));
  CHECK(fs::exists(d / "notes.tmp.txt"));
  fs::remove_all(d);
}

TEST_CASE("the autosave snapshot changes with every saved setting, the export folder too") {
  const Settings base;
  const std::string before = settings_snapshot(base);
  const std::vector<std::pair<const char*, void (*)(Settings&)>> changes{
      {"dark_theme", [](Settings& s) { s.dark_theme = !s.dark_theme; }},
      {"ui_scale", [](Settings& s) { s.ui_scale = 1.5f; }},
      {"open_labs", [](Settings& s) { s.open_labs.push_back("rope"); }},
      {"active_lab", [](Settings& s) { s.active_lab = "kv"; }},
      {"window_width", [](Settings& s) { s.window_width = 1000; }},
      {"window_height", [](Settings& s) { s.window_height = 700; }},
      {"language", [](Settings& s) { s.language = "zh"; }},
      {"export_dir", [](Settings& s) { s.export_dir = "/tmp/slides"; }}};
  for (const auto& [name, change] : changes) {
    INFO("field " << name);
    Settings s = base;
    change(s);
    CHECK(settings_snapshot(s) != before);
  }
  // The labs' presets are compared live by the shell; the copy saved last is not.
  Settings s = base;
  s.last_preset["rope"] = "rope?dim=64";
  CHECK(settings_snapshot(s) == before);
}

TEST_CASE("with no HOME and an untrusted temporary folder, one session folder is removed at exit") {
  // Issue 36: every call made a poslab-session-XXXXXX folder, and none was ever removed.
  const fs::path d = poslab::test::fresh_dir("settings_test", "session");
  const pid_t kid = ::fork();
  REQUIRE(kid >= 0);
  if (kid == 0) {
    ::unsetenv("HOME");
    ::unsetenv("XDG_CONFIG_HOME");
    ::unsetenv("XDG_DATA_HOME");
    ::setenv("TMPDIR", d.c_str(), 1);
    // A file where the per-user folder should be: user_dir refuses it (not a directory).
    std::ofstream(d / ("poslab-" + std::to_string(::geteuid()))) << "x";
    const std::string c1 = config_dir(), d1 = data_dir(), c2 = config_dir();
    const bool same = c1 == c2 && fs::path(c1).parent_path() == fs::path(d1).parent_path() &&
                      fs::is_directory(c1) && fs::is_directory(d1);
    std::ofstream(d / "session.txt") << fs::path(c1).parent_path().string();
    std::exit(same ? 0 : 3);  // a normal exit: static destructors run
  }
  int status = 0;
  ::waitpid(kid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::string session;
  std::getline(std::ifstream(d / "session.txt"), session);
  CHECK(session.find("poslab-session-") != std::string::npos);
  CHECK_FALSE(fs::exists(session));
  int left = 0;
  for (const auto& e : fs::directory_iterator(d))
    left += e.path().filename().string().rfind("poslab-session-", 0) == 0;
  CHECK(left == 0);
  fs::remove_all(d);
}
