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
  std::vector<std::string> open_labs{"welcome"};   // panel ids open as tabs, in order
  std::string active_lab = "welcome";              // tab shown at start
  std::map<std::string, std::string> last_preset;  // panel id -> preset when last closed
  int window_width = 1440;                         // pixels
  int window_height = 900;                         // pixels
  std::string language = "en";                     // interface language: "en" or "zh"
  std::string export_dir;  // folder of the last export ("" = pictures_dir())
};

// $XDG_CONFIG_HOME/poslab and $XDG_DATA_HOME/poslab (HOME-based defaults), created if missing.
std::string config_dir();
std::string data_dir();
// The user's pictures folder, where the first export goes: $XDG_PICTURES_DIR, else its line
// in user-dirs.dirs (what `xdg-user-dir PICTURES` reads), else $HOME. Empty if none exists.
std::string pictures_dir();

// Loads settings.json from dir. Missing file: defaults. Corrupt file: renamed to
// settings.json.corrupt-<time>, defaults returned, and `warning` says so. A path that cannot
// be examined (symlink loop, name too long, permission denied) or is not a regular file
// (a FIFO, a directory) is never opened: defaults, and `warning` says why. Never throws.
Settings load_settings(const std::string& dir, std::string& warning);
// The parser and writer behind load_settings / save_settings, in memory (the fuzz harness
// uses them). settings_from_json throws nlohmann::json::exception on text that is not
// settings JSON; settings_to_json never throws (bytes that are not UTF-8 become U+FFFD).
Settings settings_from_json(const std::string& text);
std::string settings_to_json(const Settings& s);
// What the shell's autosave compares to tell whether to save: every saved field except
// last_preset (the shell adds each lab's saved_preset, which save() copies into last_preset).
// A new field of Settings is part of it without being listed here.
std::string settings_snapshot(const Settings& s);
// Writes settings.json atomically; throws poslab::FileError on failure.
void save_settings(const std::string& dir, const Settings& s);

// The "a start is running" marker, <dir>/running.<pid>: one per process, written at start,
// removed at a clean end, so two windows never remove each other's. Returns true if an
// earlier start left its marker and its process is gone (it crashed or was killed), so its
// saved state may be what brought it down; such markers (and the old single running.pid)
// are removed. `marker_path` is set to this process's marker ("" if it cannot be written).
// Never throws.
bool start_marker_begin(const std::string& dir, std::string& marker_path);
void start_marker_end(const std::string& marker_path);

// Removes temporary files of atomic writes (<name>.tmp.<pid>, io/files/atomic_file.cpp)
// whose process is gone: a kill between writing and renaming leaves them. Returns how many.
int remove_stale_temp_files(const std::string& dir);

}  // namespace poslab::app
