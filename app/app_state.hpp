// The one application-state object: panels, settings, fonts, the error banner and the
// frame-pacing state. main.cpp owns exactly one; panels reach it only through AppContext.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/fonts.hpp"
#include "app/panel.hpp"
#include "app/settings.hpp"

struct GLFWwindow;

namespace poslab::app {

class AppState final : public AppContext {
 public:
  AppState(bool headless, std::string lessons_dir);

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
  ImFont* mono_font() const override { return fonts_.mono; }
  bool headless() const override { return headless_; }
  void ensure_glyphs(const std::string& utf8) override;

  // ---- shell ----
  // Applies the theme and fonts for `content_scale` (monitor) unless the user chose a scale.
  void setup_style(float content_scale);
  // Draws the menu bar, banner and the open labs; one call per frame.
  void draw_frame();
  // True if something will move without input (animation, pending frames).
  bool wants_continuous_frames();
  void select_lab(const std::string& id);
  Panel* find_panel(const std::string& id);
  // Saves settings (and each lab's preset) atomically; reports failures on the banner.
  void save();
  // Saves when something changed and at least `min_interval_s` passed since the last save,
  // so a crash or kill loses at most a few seconds of settings.
  void autosave(double now_s, double min_interval_s = 2.0);
  void release_gl();

  const std::vector<std::string>& errors() const { return errors_; }
  void clear_errors() { errors_.clear(); }
  std::vector<std::unique_ptr<Panel>>& panels() { return panels_; }
  Settings& settings() { return settings_; }
  bool quit_requested() const { return quit_requested_; }
  bool fonts_dirty() const { return fonts_dirty_; }
  void rebuild_fonts(float content_scale);

 private:
  void draw_menu();
  void draw_banner();
  void draw_preset_bar(Panel& p);
  void apply_theme();

  bool headless_;
  std::string lessons_dir_, config_dir_, data_dir_;
  Settings settings_;
  Fonts fonts_;
  float scale_ = 1.0f;
  float content_scale_ = 1.0f;
  std::vector<std::unique_ptr<Panel>> panels_;
  std::vector<std::string> errors_;
  std::string select_next_;          // tab to bring to front on the next frame
  std::string preset_edit_;          // text in the preset field of the active lab
  std::string preset_edit_for_;      // lab whose preset the field shows
  std::string extra_glyphs_;         // text typed by the user whose glyphs the atlas must hold
  std::set<unsigned> asked_glyphs_;  // characters already requested (a font may lack some)
  std::string last_saved_;           // serialised settings at the last save
  double last_save_time_ = 0;
  int frames_requested_ = 3;
  bool quit_requested_ = false;
  bool fonts_dirty_ = false;
};

}  // namespace poslab::app
