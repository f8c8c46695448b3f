// Settings file I/O (see settings.hpp). JSON through nlohmann-json.
#include "app/settings.hpp"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/atomic_file.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {
namespace fs = std::filesystem;

namespace {

std::string xdg_dir(const char* var, const char* fallback_under_home) {
  std::string base;
  if (const char* v = std::getenv(var); v && *v == '/')
    base = v;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::string(home) + "/" + fallback_under_home;
  else
    base = "/tmp";
  const std::string dir = base + "/poslab";
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir;
}

}  // namespace

std::string config_dir() {
  return xdg_dir("XDG_CONFIG_HOME", ".config");
}
std::string data_dir() {
  return xdg_dir("XDG_DATA_HOME", ".local/share");
}

Settings load_settings(const std::string& dir, std::string& warning) {
  Settings s;
  const std::string path = dir + "/settings.json";
  if (!fs::exists(path)) return s;
  try {
    const auto j = nlohmann::json::parse(read_file(path));
    s.dark_theme = j.value("dark_theme", s.dark_theme);
    s.ui_scale = j.value("ui_scale", s.ui_scale);
    if (!(s.ui_scale == 0.0f || (s.ui_scale >= 0.5f && s.ui_scale <= 3.0f))) s.ui_scale = 0.0f;
    s.open_labs = j.value("open_labs", s.open_labs);
    s.active_lab = j.value("active_lab", s.active_lab);
    s.last_preset = j.value("last_preset", s.last_preset);
    s.window_width = std::clamp(j.value("window_width", s.window_width), 320, 16384);
    s.window_height = std::clamp(j.value("window_height", s.window_height), 240, 16384);
  } catch (const std::exception& e) {
    const std::string backup = path + ".corrupt-" + std::to_string(std::time(nullptr));
    std::error_code ec;
    fs::rename(path, backup, ec);
    warning = path + " could not be read (" + e.what() + "); it was kept as " + backup +
              " and default settings are used.";
    return Settings{};
  }
  return s;
}

void save_settings(const std::string& dir, const Settings& s) {
  nlohmann::json j;
  j["dark_theme"] = s.dark_theme;
  j["ui_scale"] = s.ui_scale;
  j["open_labs"] = s.open_labs;
  j["active_lab"] = s.active_lab;
  j["last_preset"] = s.last_preset;
  j["window_width"] = s.window_width;
  j["window_height"] = s.window_height;
  write_file_atomically(dir + "/settings.json", j.dump(2) + "\n");
}

}  // namespace poslab::app
