// What the shell offers panels while they draw: error reporting, opening another lab
// with a preset (lessons do this), asking for more frames, the UI scale and theme, the
// user's directories and the GL helpers. Owned by AppState; panels get a reference.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct ImFont;

namespace poslab::app {

// Receives a screen capture: width x height RGBA pixels, rows top first.
using CaptureSink = std::function<void(int width, int height, std::vector<uint8_t> rgba)>;

// How far fetch_files is: `done` once every file is in place or failed; `error` names each
// file that could not be fetched (one line).
struct FileFetch {
  bool done = true;
  int fetched = 0;  // files in place
  int files = 0;    // files asked for
  std::string error;
};

class AppContext {
 public:
  virtual ~AppContext() = default;
  // Show a visible, dismissable banner ("<where>: <message>"). The app keeps running.
  virtual void report_error(const std::string& where, const std::string& message) = 0;
  // Open the panel that owns the preset's lab name and load the preset into it; errors
  // become a banner. Used by lessons ("open this lab in this state").
  virtual void open_lab(const std::string& preset) = 0;
  // Keep rendering for at least n more frames (e.g. while a background job runs).
  virtual void request_frames(int n) = 0;
  // UI scale (1 = 96 dpi); multiply pixel sizes by it.
  virtual float ui_scale() const = 0;
  virtual bool dark_theme() const = 0;
  // XDG directories for this app ($XDG_CONFIG_HOME/poslab, $XDG_DATA_HOME/poslab); created.
  virtual const std::string& config_dir() const = 0;
  virtual const std::string& data_dir() const = 0;
  // Font for Chinese text, or nullptr when no CJK font is installed (then use English).
  virtual ImFont* cjk_font() const = 0;
  // Larger bold fonts for headings and a lesson's title, and a monospace font for code (all
  // always set).
  virtual ImFont* heading_font() const = 0;
  virtual ImFont* title_font() const = 0;
  virtual ImFont* mono_font() const = 0;
  // Make sure every character of `utf8` can be drawn (e.g. Chinese the user typed): missing
  // glyphs are added to the font atlas, which is rebuilt before the next frame.
  virtual void ensure_glyphs(const std::string& utf8) = 0;
  // The interface text for `key` in the user's language (assets/i18n/<lang>/*.toml), e.g.
  // tr("menu.file"); the key itself if no file has it.
  virtual const char* tr(const char* key) const { return key; }
  // True in the headless check/capture modes (no real user; skip blocking dialogs).
  virtual bool headless() const = 0;
  // True when a frame waits for the background jobs it polls (the headless modes, so
  // checks and captures see the results); false for a user, and for headless runs with
  // --live-jobs, which measure the frames a user sees.
  virtual bool waits_for_jobs() const { return headless(); }
  // Reads the screen rectangle [x0, x1) x [y0, y1) (ImGui coordinates) once this frame is
  // rendered, before it is shown, and hands the pixels to `sink` (recordings use it).
  virtual void capture_rect(float x0, float y0, float x1, float y1, CaptureSink sink) = 0;
  // True while the shell re-renders a frame for an exported picture: animations must not
  // advance (the picture shows the state whose numbers are exported).
  virtual bool capturing() const { return false; }
  // Switches the interface language ("en" or "zh") from inside a lab, as View > Language
  // does: one language setting for the menus and the lessons. Applied before the next
  // frame (texts handed out this frame stay valid until then).
  virtual void request_language(const std::string& lang) { (void)lang; }
  // True when the user asked for the developer tools (the lessons' reload button and the
  // progress file's path): POSLAB_DEVELOPER=1 in the environment.
  virtual bool developer() const { return false; }
  // The browser's own file picker (the browser build; the desktop opens files by path):
  // open_file_picker starts it (`accept`: ".safetensors"); the chosen file, copied into the
  // page's memory, is returned once by take_picked_file in a later frame ("" until then).
  virtual bool has_file_picker() const { return false; }
  virtual void open_file_picker(const std::string& accept) { (void)accept; }
  virtual std::string take_picked_file() { return {}; }
  // Files the app wrote in the page's memory handed to the user as a browser download (a
  // trained checkpoint); the desktop writes them on the user's disk: no download there.
  virtual bool can_download() const { return false; }
  virtual void download(const std::string& path) { (void)path; }
  // Files of the data folder that the browser build keeps beside the page until a lab needs
  // them (the length lab's models): the first call starts fetching those not yet in the
  // page's memory; call it each frame until done. The desktop has its files on disk: done.
  virtual FileFetch fetch_files(const std::vector<std::string>& paths) {
    const int n = static_cast<int>(paths.size());
    return {true, n, n, {}};
  }
};

}  // namespace poslab::app
