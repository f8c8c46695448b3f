// Settings file I/O (see settings.hpp). JSON through nlohmann-json.
#include "app/settings.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/files/user_dirs.hpp"

namespace poslab::app {
namespace fs = std::filesystem;

namespace {

// The one private folder of a session whose user folder cannot be trusted: made once per
// process (config/ and data/ inside it) and removed with everything in it when the process
// ends normally, so sessions leave no poslab-session-* folders behind in the temporary
// folder (issue 36). Process-wide by nature: the folder lives as long as the process.
struct SessionFolder {
  std::string path;  // "" until made
  ~SessionFolder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

SessionFolder& session_folder() {
  static SessionFolder folder;
  return folder;
}

// The user's folder (io/files/user_dirs.hpp: the same rule as the command line's),
// created. When even the per-user temporary folder cannot be trusted, this session works
// in a fresh private folder (mkdtemp, 0700) and says so: nothing is kept for the next one.
std::string user_folder(UserDir kind) {
  std::string dir;
  try {
    dir = user_dir(kind);
  } catch (const Error& e) {
    SessionFolder& s = session_folder();
    if (s.path.empty()) {
      std::string templ = (fs::temp_directory_path() / "poslab-session-XXXXXX").string();
      if (::mkdtemp(templ.data())) s.path = templ;
      std::fprintf(stderr, "poslab: %s; using %s for this session only (removed at exit)\n",
                   e.what(), s.path.empty() ? "." : s.path.c_str());
    }
    dir = s.path.empty() ? std::string(".")
                         : s.path + (kind == UserDir::config ? "/config" : "/data");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir;
}

const char* file_type_name(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "not a regular file";
  }
}

// A window size in pixels, clamped to [lo, hi] while still a double: nlohmann's get<int>()
// of 1e10 is a double-to-int conversion that overflows (undefined behaviour, found by
// fuzz_settings), and of 4294967616 it wraps to 320.
int read_pixels(const nlohmann::json& j, const char* key, int fallback, int lo, int hi) {
  const double v = j.value(key, static_cast<double>(fallback));
  return static_cast<int>(std::clamp(v, static_cast<double>(lo), static_cast<double>(hi)));
}

}  // namespace

std::string config_dir() {
  return user_folder(UserDir::config);
}
std::string data_dir() {
  return user_folder(UserDir::data);
}

std::string pictures_dir() {
  std::error_code ec;
  const char* home_env = std::getenv("HOME");
  const std::string home = home_env && *home_env ? home_env : "";
  std::string dir;
  if (const char* v = std::getenv("XDG_PICTURES_DIR"); v && *v == '/') {
    dir = v;
  } else {
    // user-dirs.dirs lines look like XDG_PICTURES_DIR="$HOME/Pictures" (xdg-user-dirs(1)).
    const char* cfg = std::getenv("XDG_CONFIG_HOME");
    const std::string file =
        (cfg && *cfg == '/' ? std::string(cfg) : home + "/.config") + "/user-dirs.dirs";
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      const std::string key = "XDG_PICTURES_DIR=\"";
      if (line.rfind(key, 0) != 0 || line.size() < key.size() + 1 || line.back() != '"') continue;
      std::string value = line.substr(key.size(), line.size() - key.size() - 1);
      if (value.rfind("$HOME", 0) == 0)
        value.replace(0, 5, home);
      else if (value.empty() || value[0] != '/')
        continue;
      dir = value;
    }
  }
  if (!dir.empty() && fs::is_directory(dir, ec)) return dir;
  return !home.empty() && fs::is_directory(home, ec) ? home : std::string();
}

Settings settings_from_json(const std::string& text) {
  Settings s;
  const auto j = nlohmann::json::parse(text);
  s.dark_theme = j.value("dark_theme", s.dark_theme);
  // Range-checked as a double: a float cannot hold 1e300.
  const double scale = j.value("ui_scale", static_cast<double>(s.ui_scale));
  s.ui_scale = scale == 0.0 || (scale >= 0.5 && scale <= 3.0) ? static_cast<float>(scale) : 0.0f;
  s.open_labs = j.value("open_labs", s.open_labs);
  s.active_lab = j.value("active_lab", s.active_lab);
  s.last_preset = j.value("last_preset", s.last_preset);
  s.window_width = read_pixels(j, "window_width", s.window_width, 320, 16384);
  s.window_height = read_pixels(j, "window_height", s.window_height, 240, 16384);
  s.language = j.value("language", s.language);
  s.export_dir = j.value("export_dir", s.export_dir);
  return s;
}

std::string settings_to_json(const Settings& s) {
  nlohmann::json j;
  j["dark_theme"] = s.dark_theme;
  j["ui_scale"] = s.ui_scale;
  j["open_labs"] = s.open_labs;
  j["active_lab"] = s.active_lab;
  j["last_preset"] = s.last_preset;
  j["window_width"] = s.window_width;
  j["window_height"] = s.window_height;
  j["language"] = s.language;
  j["export_dir"] = s.export_dir;
  // A path or preset may hold bytes that are not UTF-8 (Linux file names are any bytes): they
  // are written as U+FFFD instead of throwing, so the other settings are never lost.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Settings load_settings(const std::string& dir, std::string& warning) {
  Settings s;
  const std::string path = dir + "/settings.json";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec && st.type() != fs::file_type::not_found) {
    warning = path + " cannot be examined (" + ec.message() +
              "); default settings are used. Check the path and $XDG_CONFIG_HOME.";
    return s;
  }
  if (st.type() == fs::file_type::not_found) return s;
  if (st.type() != fs::file_type::regular) {
    warning = path + " is " + file_type_name(st.type()) +
              ", not a settings file; it was not read and default settings are used. Remove "
              "it to let PosLab save settings there.";
    return s;
  }
  try {
    s = settings_from_json(read_file(path, 1 << 20));
  } catch (const std::exception& e) {
    const std::string backup = path + ".corrupt-" + std::to_string(std::time(nullptr));
    fs::rename(path, backup, ec);
    warning = path + " could not be read (" + e.what() + "); it was kept as " + backup +
              " and default settings are used.";
    return Settings{};
  }
  return s;
}

std::string settings_snapshot(const Settings& s) {
  Settings without_presets = s;
  without_presets.last_preset.clear();
  return settings_to_json(without_presets);
}

void save_settings(const std::string& dir, const Settings& s) {
  write_file_atomically(dir + "/settings.json", settings_to_json(s));
}

namespace {

// True if a process with this id exists (another user's process counts as existing).
bool process_alive(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

bool start_marker_begin(const std::string& dir, std::string& marker_path) {
  bool unfinished = false;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  std::vector<fs::path> gone;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("running.", 0) != 0) continue;
    const std::string tail = name.substr(8);
    long pid = 0;
    std::error_code ec2;
    if (tail == "pid") {  // the single marker of versions before per-process markers
      if (!it->is_regular_file(ec2)) continue;
      try {
        pid = std::stol(read_file(it->path().string(), 64));
      } catch (const std::exception&) {
        pid = 0;  // torn or edited marker: its start did not finish either
      }
    } else if (!tail.empty() && tail.size() <= 10 &&
               tail.find_first_not_of("0123456789") == std::string::npos) {
      pid = std::stol(tail);
    } else {
      continue;
    }
    // Its process still running is another PosLab window (or a reused pid): not a crash.
    if (pid == ::getpid() || !process_alive(pid)) {
      unfinished = true;
      gone.push_back(it->path());
    }
  }
  for (const fs::path& p : gone) fs::remove(p, ec);
  marker_path.clear();
  const std::string path = dir + "/running." + std::to_string(::getpid());
  try {
    write_file_atomically(path, std::to_string(::getpid()) + "\n");
    marker_path = path;
  } catch (const std::exception&) {
    // Read-only configuration directory: no guard, but no reason to refuse to start.
  }
  return unfinished;
}

void start_marker_end(const std::string& marker_path) {
  if (marker_path.empty()) return;
  std::error_code ec;
  fs::remove(marker_path, ec);
}

int remove_stale_temp_files(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos || at == 0) continue;
    const std::string digits = name.substr(at + 5);
    if (digits.empty() || digits.size() > 10 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::error_code ec2;
    if (!it->is_regular_file(ec2) || process_alive(std::stol(digits))) continue;
    if (fs::remove(it->path(), ec2)) ++removed;
  }
  return removed;
}

}  // namespace poslab::app
