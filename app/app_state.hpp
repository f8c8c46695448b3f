// The one application-state object: panels, settings, fonts, the per-lab error banners,
// the crash-loop guard and the frame-pacing state. main.cpp owns exactly one; panels reach
// it only through AppContext.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/app_context.hpp"
#include "app/export/export_files.hpp"
#include "app/export/share_ui.hpp"
#include "app/fonts.hpp"
#include "app/panel.hpp"
#include "app/settings.hpp"
#include "io/i18n/ui_strings.hpp"

namespace poslab::app {

struct AppStateOptions {
  bool headless = false;     // check/capture modes: no user, jobs are waited for
  bool live_jobs = false;    // headless, but jobs are not waited for (as for a user)
  bool use_settings = true;  // load settings.json at start and keep the start marker
  bool start_marker = true;  // with use_settings: the crash-loop guard's marker (off in the
                             // browser: a reload ends the page without a clean finish)
  std::string lessons_dir;   // lesson files (fonts take the glyphs they use)
  std::string link_base;     // "" = `poslab:` preset links; else the page's address (the
                             // browser build): links are <link_base>#<preset>
  // Called with each file the Share popup wrote (the browser build offers it as a download).
  // Set: exports are downloads, and the Share popup shows download buttons only (no paths,
  // no Browse...).
  std::function<void(const std::string& path)> on_file_exported;
  // The browser's file picker (AppContext::has_file_picker): starts it; returns the chosen
  // file's path once it is in the page's memory ("" until then). Empty on the desktop.
  std::function<void(const std::string& accept)> open_file_picker;
  std::function<std::string()> take_picked_file;
  // The browser's clipboard, read only on a Paste (navigator.clipboard.readText, which may
  // ask the user): read_clipboard starts it; take_clipboard returns, once, {true, text} or
  // {false, why} in a later frame (nullopt until then). Empty on the desktop: ImGui's.
  std::function<void()> read_clipboard;
  std::function<std::optional<std::pair<bool, std::string>>()> take_clipboard;
  // AppContext::fetch_files in the browser build (empty on the desktop: files are on disk).
  std::function<FileFetch(const std::vector<std::string>& paths)> fetch_files;
};

// A message on a banner: shell-wide (lab empty) or belonging to one lab.
struct BannerMessage {
  std::string lab;      // panel id, "" = every tab
  std::string text;     // "<where>: <message>"
  std::string preset;   // the lab's preset after the frame it was reported in; the message
                        // clears when the preset differs (the user changed the state)
  bool pending = true;  // preset not yet taken (it is taken once the panel's frame ends)
};

// Test hooks (--test-fault): make a lab's draw fail after it drew, from deep inside nested
// ImGui scopes, to exercise the recovery path and the crash-loop guard.
enum class TestFault { none, throw_error, abort_process };

class AppState final : public AppContext {
 public:
  explicit AppState(AppStateOptions opt);

  // ---- AppContext ----
  void report_error(const std::string& where, const std::string& message) override;
  void open_lab(const std::string& preset) override;
  void request_frames(int n) override { frames_requested_ = std::max(frames_requested_, n); }
  float ui_scale() const override { return scale_; }
  bool dark_theme() const override { return settings_.dark_theme; }
  const std::string& config_dir() const override { return config_dir_; }
  const std::string& data_dir() const override { return data_dir_; }
  ImFont* cjk_font() const override { return fonts_.has_cjk ? fonts_.body : nullptr; }
  ImFont* heading_font() const override { return fonts_.heading; }
  ImFont* title_font() const override { return fonts_.title; }
  ImFont* mono_font() const override { return fonts_.mono; }
  bool headless() const override { return opt_.headless; }
  bool waits_for_jobs() const override { return opt_.headless && !opt_.live_jobs; }
  void ensure_glyphs(const std::string& utf8) override;
  const char* tr(const char* key) const override { return strings_.get(key).c_str(); }
  void capture_rect(float x0, float y0, float x1, float y1, CaptureSink sink) override {
    captures_.push_back({x0, y0, x1, y1, std::move(sink)});
  }
  bool capturing() const override { return capturing_; }
  void request_language(const std::string& lang) override { pending_language_ = lang; }
  bool developer() const override;
  bool has_file_picker() const override { return static_cast<bool>(opt_.open_file_picker); }
  bool can_download() const override { return static_cast<bool>(opt_.on_file_exported); }
  void download(const std::string& path) override {
    if (opt_.on_file_exported) opt_.on_file_exported(path);
  }
  void open_file_picker(const std::string& accept) override {
    if (opt_.open_file_picker) opt_.open_file_picker(accept);
  }
  std::string take_picked_file() override {
    return opt_.take_picked_file ? opt_.take_picked_file() : std::string();
  }
  FileFetch fetch_files(const std::vector<std::string>& paths) override {
    return opt_.fetch_files ? opt_.fetch_files(paths) : AppContext::fetch_files(paths);
  }

  // ---- shell ----
  // Applies the theme and fonts for `content_scale` (monitor) unless the user chose a scale.
  void setup_style(float content_scale);
  // Draws the menu bar, banners and the open labs; one call per frame.
  void draw_frame();
  // True if a frame should be drawn without waiting for input (animation, pending frames);
  // consumes one pending frame.
  bool wants_continuous_frames();
  // Opens a preset the user gave directly (command line): files it names open unasked.
  void open_lab_from_user(const std::string& preset);
  void select_lab(const std::string& id);
  Panel* find_panel(const std::string& id);
  // Saves settings (and each lab's saved_preset) atomically; reports failures on the banner
  // and returns the error ("" when saved or settings are not used).
  std::string save();
  // Saves when something changed and at least `min_interval_s` passed since the last save,
  // so a crash or kill loses at most a few seconds of settings.
  void autosave(double now_s, double min_interval_s = 2.0);
  // A clean end: saves and removes the start marker (the next start restores everything).
  // Returns save()'s error: at Quit the banner is gone, so the caller says it on stderr.
  std::string finish();
  void release_gl();
  // After the frame is rendered into the back buffer (framebuffer `fb_width` x `fb_height`):
  // reads the rectangles panels asked for with capture_rect and hands them over.
  void deliver_captures(int fb_width, int fb_height);
  // Switches the interface language ("en" or "zh") at once; kept in settings.
  void set_language(const std::string& lang);
  // Asks every panel's background work to stop (Quit); does not block.
  void cancel_jobs();

  // Every banner message's text, shell-wide first.
  std::vector<std::string> errors() const;
  const std::vector<BannerMessage>& banner() const { return banner_; }
  void clear_errors() { banner_.clear(); }
  std::vector<std::unique_ptr<Panel>>& panels() { return panels_; }
  Settings& settings() { return settings_; }
  // True if the previous start did not finish (crash or kill): labs opened in defaults.
  bool safe_start() const { return safe_start_; }
  bool quit_requested() const { return quit_requested_; }
  // Whether Quit was asked for since the last call; forgets it (--click-fuzz keeps going).
  bool take_quit_request() { return std::exchange(quit_requested_, false); }
  bool fonts_dirty() const { return fonts_dirty_; }
  void request_fonts_rebuild() { fonts_dirty_ = true; }  // at the next frame (a new scale)
  void rebuild_fonts(float content_scale);
  // ---- export and share (app/export/share_ui.cpp) ----
  // The picture the user asked for this frame (main.cpp renders and saves it).
  std::optional<PictureRequest> take_picture_request();
  // Re-rendering for a picture: no popups, no animation; `k` times the UI scale (fonts are
  // rebuilt before the next frame). set_capture(false, 1) ends it.
  void set_capture(bool on, int k);
  // Where the active lab's main view was drawn in the last frame (ImGui coordinates).
  ViewRect export_rect() const { return export_rect_; }
  // The result of a picture request: shown in the Share popup, and on the banner if failed.
  void picture_done(const std::string& path, const std::string& error);
  // The body font (captions of pictures, drawn at the current scale).
  const ImFont* caption_font() const { return fonts_.body; }
  // The active lab's poslab-cli command and preset link ("" if no lab is active).
  std::string active_cli_command();
  std::string active_preset_link();
  // A link that opens `preset`: "poslab:<preset>", or <link_base>#<preset> in the browser.
  std::string preset_link(const std::string& preset) const;
  // The Share popup's picture (take_picture_request) rendered and saved as PNG: the frame is
  // drawn twice offscreen by `draw(k, framebuffer)` at k times the UI scale (no popups,
  // animations held), the active lab's view read back with its caption, picture_done told.
  // `fb_width` x `fb_height`: the window's framebuffer. Returns "" or why not.
  std::string export_picture(const PictureRequest& req, int fb_width, int fb_height,
                             const std::function<void(int k, unsigned framebuffer)>& draw);
  // Opens a `poslab:` link as if pasted (files it names wait for approval); a bad link
  // becomes a banner message. Returns false then.
  bool open_link(const std::string& uri);

  void set_test_fault(const std::string& lab, TestFault f) {
    fault_lab_ = lab;
    fault_ = f;
  }

 private:
  void draw_menu();
  void draw_banner(const std::string& lab);
  void draw_preset_bar(Panel& p);
  void draw_lab(Panel& p);
  void draw_share(Panel& p);  // the Share popup (share_ui.cpp)
  void share_menu_items();    // File menu entries (share_ui.cpp)
  void share_save(Panel& p, ShareTarget t, const std::string& path, bool replace);
  // After a file was written: its folder is the one the Share popup proposes next time.
  void remember_export_dir(const std::string& written);
  // Exports are downloads (the browser build: on_file_exported is set).
  bool exports_are_downloads() const;
  // After the Share popup wrote `path`: hands it over as a download (browser) or remembers
  // its folder (desktop); the status line to show (`saved_text` with {path} and {bytes}).
  std::string exported(const std::string& path, const char* saved_text);
  void apply_theme();
  void restore_presets();
  void clear_resolved_errors(Panel& p);
  void settle_window_sizes();  // one more frame while a window's size still changes
  // A lab's title in the interface language (title.<id>), else the panel's own.
  const char* lab_title(const Panel& p) const;

  AppStateOptions opt_;
  std::string config_dir_, data_dir_;
  Settings settings_;
  Fonts fonts_;
  io::UiStrings strings_;
  bool last_open_failed_ = false;  // the last open_lab() ended on the banner (open_link)
  float scale_ = 1.0f;
  float content_scale_ = 1.0f;
  std::vector<std::unique_ptr<Panel>> panels_;
  std::map<std::string, std::string> default_preset_;  // panel id -> preset at construction
  std::map<std::string, std::string> unrestored_;      // safe start: presets not yet loaded
  std::string start_notice_;  // the banner text saying so (its Restore button goes with it)
  std::vector<BannerMessage> banner_;
  std::string drawing_lab_;                       // panel being drawn or loaded ("" = shell)
  std::map<std::string, std::string> came_from_;  // lab -> lab whose link opened it
  std::string select_next_;                       // tab to bring to front on the next frame
  std::string preset_edit_;                       // text in the preset field of the active lab
  std::string preset_edit_for_;                   // lab whose preset the field shows
  std::string extra_glyphs_;         // text typed by the user whose glyphs the atlas must hold
  std::set<unsigned> asked_glyphs_;  // characters already requested (a font may lack some)
  std::string last_saved_;           // serialised settings at the last save
  std::string marker_path_;          // "start did not finish yet" marker, "" if not kept
  double last_save_time_ = 0;
  int frames_requested_ = 3;
  struct WindowSize {
    unsigned id;  // ImGuiID
    float width, height;
    bool operator==(const WindowSize&) const = default;
  };
  std::vector<WindowSize> window_sizes_;  // each window drawn last frame (settle_window_sizes)
  bool safe_start_ = false;
  bool quit_requested_ = false;
  bool fonts_dirty_ = false;
  std::string fault_lab_;
  TestFault fault_ = TestFault::none;
  struct CaptureRequest {
    float x0, y0, x1, y1;
    CaptureSink sink;
  };
  std::vector<CaptureRequest> captures_;  // asked for during this frame's draw
  ShareUi share_;
  std::optional<PictureRequest> picture_request_;
  ViewRect export_rect_;
  bool capturing_ = false;
  std::string pending_language_;  // request_language(): applied at the next frame's start
  // A Paste waiting for the browser's clipboard (AppStateOptions::read_clipboard): what to
  // do with the text once it arrives.
  std::function<void(const std::string&)> pending_paste_;
  void paste(std::function<void(const std::string&)> use);
  void finish_paste();
  int export_scale_ = 1;
};

}  // namespace poslab::app
