// The user's settings (theme, scale, open labs, each lab's last preset) and where they
// live: $XDG_CONFIG_HOME/poslab (default ~/.config/poslab), never the working directory.
// Saved as JSON, atomically; a corrupt file is kept aside and the user is told.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace poslab::app {

struct Settings {
  bool dark_theme = true;  // dark or light colours
  float ui_scale = 0.0f;   // 0 = from the monitor's content scale, else [0.5, 3]
  std::vector<std::string> open_labs{"rope"};      // panel ids open as tabs, in order
  std::string active_lab = "rope";                 // tab shown at start
  std::map<std::string, std::string> last_preset;  // panel id -> preset when last closed
  int window_width = 1440;                         // pixels
  int window_height = 900;                         // pixels
};

// $XDG_CONFIG_HOME/poslab and $XDG_DATA_HOME/poslab (HOME-based defaults), created if missing.
std::string config_dir();
std::string data_dir();

// Loads settings.json from dir. Missing file: defaults. Corrupt file: renamed to
// settings.json.corrupt-<time>, defaults returned, and `warning` says so.
Settings load_settings(const std::string& dir, std::string& warning);
// Writes settings.json atomically; throws poslab::FileError on failure.
void save_settings(const std::string& dir, const Settings& s);

}  // namespace poslab::app
