// The shell: menu, tabs of open labs, preset bar, per-lab error banners, theme, settings,
// and the guards that keep the GUI alive: a panel that throws is unwound and reported, and
// a start after one that did not finish opens the labs in their defaults.
// Sections: limits | start and restored presets | error banners' state | opening labs |
// frames, theme and fonts | settings (save, autosave, language) | jobs, GL and captures.
// The drawing (menu, banner, preset bar, lab, frame; the --test-fault hook) is in
// app_state_draw.cpp.
#include "app/app_state.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "app/capture.hpp"
#include "app/embedded_texts.hpp"
#include "app/imgui_modal.hpp"
#include "app/imgui_unwind.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"

namespace poslab::app {

// ---- limits -----------------------------------------------------------------------------

namespace {

constexpr size_t kMaxMessagesPerLab = 4;  // newest kept; older ones of the same lab drop

}  // namespace

// ---- start and restored presets ---------------------------------------------------------

AppState::AppState(AppStateOptions opt) : opt_(std::move(opt)) {
  config_dir_ = poslab::app::config_dir();
  data_dir_ = poslab::app::data_dir();
  panels_ = make_panels();
  std::string warning;  // a settings file that could not be used as it was
  if (opt_.use_settings) {
    // Leftovers of atomic writes killed between write and rename.
    remove_stale_temp_files(config_dir_);
    remove_stale_temp_files(data_dir_);
    settings_ = load_settings(config_dir_, warning);
    if (opt_.start_marker) safe_start_ = start_marker_begin(config_dir_, marker_path_);
  }
  set_language(settings_.language);
  // Reported once the interface texts are loaded, so the banner is in the user's language.
  if (!warning.empty()) report_error(tr("errors.where.settings"), warning);
  // Defaults in the interface language (the lessons lab's preset names its language).
  for (auto& p : panels_) default_preset_[p->id()] = p->preset();
  if (safe_start_) {
    // The last start did not finish: its saved state may be what brought it down. Keep the
    // presets (saved again unchanged) and let the user restore them from the banner.
    unrestored_ = settings_.last_preset;
    std::erase_if(unrestored_, [&](const auto& kv) { return !find_panel(kv.first); });
    report_error(tr("errors.where.start"), tr("errors.app.start_unfinished"));
    start_notice_ = banner_.empty() ? std::string() : banner_.back().text;
  } else {
    restore_presets();
  }
  // Labs with their own text language (lessons) start in the interface language, whatever
  // their restored state said.
  for (auto& p : panels_) p->set_interface_language(settings_.language);
  std::erase_if(settings_.open_labs, [&](const std::string& id) { return !find_panel(id); });
  if (settings_.open_labs.empty() && !panels_.empty())
    settings_.open_labs.push_back(panels_.front()->id());
  select_next_ = settings_.active_lab;
}

void AppState::restore_presets() {
  // Restore each lab's last state; a preset that no longer loads is reported, not fatal.
  for (auto& p : panels_) {
    auto it = settings_.last_preset.find(p->id());
    if (it == settings_.last_preset.end()) continue;
    drawing_lab_ = p->id();
    try {
      p->load_preset(it->second);
      p->trust_named_files();  // the user's own saved state
    } catch (const std::exception& e) {
      report_error(tr_args(tr("errors.where.restoring"), {{"lab", lab_title(*p)}}),
                   tr_error(*this, e));
    }
    drawing_lab_.clear();
  }
}

// ---- error banners' state ---------------------------------------------------------------

void AppState::report_error(const std::string& where, const std::string& message) {
  BannerMessage m;
  m.lab = drawing_lab_;
  m.text = where + ": " + message;
  for (const BannerMessage& b : banner_)
    if (b.lab == m.lab && b.text == m.text) return;
  const std::string lab = m.lab;
  banner_.push_back(std::move(m));
  const auto same_lab = [&](const BannerMessage& b) { return b.lab == lab; };
  if (static_cast<size_t>(std::count_if(banner_.begin(), banner_.end(), same_lab)) >
      kMaxMessagesPerLab)
    banner_.erase(std::find_if(banner_.begin(), banner_.end(), same_lab));  // the oldest
  request_frames(2);
}

std::vector<std::string> AppState::errors() const {
  std::vector<std::string> out;
  for (const auto& m : banner_)
    if (m.lab.empty()) out.push_back(m.text);
  for (const auto& m : banner_)
    if (!m.lab.empty()) out.push_back(m.text);
  return out;
}

void AppState::clear_resolved_errors(Panel& p) {
  // A lab's message stays while the lab is in the state it was reported in; once the user
  // changes that state (and the lab draws without failing) it is gone.
  bool any = false;
  for (const auto& m : banner_) any |= m.lab == p.id();
  if (!any) return;
  const std::string now = p.preset();
  for (auto& m : banner_)
    if (m.lab == p.id() && m.pending) {
      m.preset = now;  // the panel may have reacted to its error (e.g. stopped playing)
      m.pending = false;
    }
  std::erase_if(banner_,
                [&](const BannerMessage& m) { return m.lab == p.id() && m.preset != now; });
}

const char* AppState::lab_title(const Panel& p) const {
  const std::string key = std::string("title.") + p.id();
  return strings_.has(key) ? strings_.get(key).c_str() : p.title();
}

// ---- opening labs -----------------------------------------------------------------------

Panel* AppState::find_panel(const std::string& id) {
  if (id.empty()) return nullptr;
  for (auto& p : panels_)
    if (id == p->id()) return p.get();
  return nullptr;
}

void AppState::select_lab(const std::string& id) {
  if (!find_panel(id)) return;
  if (std::find(settings_.open_labs.begin(), settings_.open_labs.end(), id) ==
      settings_.open_labs.end())
    settings_.open_labs.push_back(id);
  select_next_ = id;
  request_frames(3);
}

void AppState::open_lab_from_user(const std::string& preset) {
  open_lab(preset);
  std::string lab;
  try {
    lab = preset_lab(preset);
  } catch (const std::exception&) {
    return;  // reported by open_lab
  }
  if (Panel* p = find_panel(lab)) {
    p->trust_named_files();
    p->start_requested_runs();
  }
}

void AppState::open_lab(const std::string& preset) {
  const std::string from = drawing_lab_;
  std::string lab;
  last_open_failed_ = true;  // until the preset has loaded
  try {
    lab = preset_lab(preset);
    Panel* p = find_panel(lab);
    if (!p)
      throw InputError(Message{"errors.app.no_lab",
                               {message_arg("lab", lab)},
                               "no lab called \"" + lab + "\" in this version of PosLab"});
    drawing_lab_ = lab;  // errors while loading belong to the opened lab
    p->load_preset(preset);
    last_open_failed_ = false;
    drawing_lab_ = from;
    unrestored_.erase(lab);
    std::erase_if(banner_, [&](const BannerMessage& m) { return m.lab == lab; });
    select_lab(lab);
    if (!from.empty() && from != lab) came_from_[lab] = from;
  } catch (const std::exception& e) {
    // The user asked for this lab: show it (in its previous state) with the error on its
    // banner, where it clears once the state is changed. No such lab: say so where we are.
    if (find_panel(lab)) {
      drawing_lab_ = lab;
      report_error(tr_args(tr("errors.where.opening"), {{"lab", lab_title(*find_panel(lab))}}),
                   tr_error(*this, e));
      drawing_lab_ = from;
      select_lab(lab);
      if (!from.empty() && from != lab) came_from_[lab] = from;
    } else {
      drawing_lab_ = from;
      report_error(lab.empty() ? std::string(tr("errors.where.opening_unknown"))
                               : tr_args(tr("errors.where.opening"), {{"lab", lab}}),
                   tr_error(*this, e));
    }
  }
}

// ---- frames, theme and fonts ------------------------------------------------------------

bool AppState::wants_continuous_frames() {
  if (frames_requested_ > 0) {
    --frames_requested_;
    return true;
  }
  if (Panel* p = find_panel(settings_.active_lab); p && p->animating()) return true;
  return false;
}

void AppState::apply_theme() {
  ImGuiStyle style;
  if (settings_.dark_theme)
    ImGui::StyleColorsDark(&style);
  else
    ImGui::StyleColorsLight(&style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.TabRounding = 3.0f;
  // Thin lines anti-aliased with geometry, not with the font atlas's baked lines: the atlas
  // is sampled with nearest filtering (app/gfx/font_texture.hpp).
  style.AntiAliasedLinesUseTex = false;
  style.ScaleAllSizes(scale_);
  ImGui::GetStyle() = style;
}

void AppState::setup_style(float content_scale) {
  content_scale_ = content_scale > 0 ? content_scale : 1.0f;
  scale_ = settings_.ui_scale > 0 ? settings_.ui_scale : std::clamp(content_scale_, 1.0f, 3.0f);
  scale_ *= static_cast<float>(export_scale_);  // a 2x picture is drawn at twice the scale
  fonts_ = load_fonts(scale_, opt_.lessons_dir, extra_glyphs_ + strings_.all_text() + "中文");
  if (!fonts_.note.empty()) report_error(tr("errors.where.fonts"), fonts_.note);
  apply_theme();
}

void AppState::rebuild_fonts(float content_scale) {
  fonts_dirty_ = false;
  setup_style(content_scale);
}

void AppState::ensure_glyphs(const std::string& utf8) {
  if (!fonts_.body) return;
  const char* text = utf8.c_str();
  const char* end = text + utf8.size();
  while (text < end) {
    unsigned int c = 0;
    text += ImTextCharFromUtf8(&c, text, end);
    if (c == 0) break;
    if (c < 0x80 || c > 0xFFFF) continue;  // ASCII is always there; ImWchar is 16-bit
    if (!fonts_.body->FindGlyphNoFallback(static_cast<ImWchar>(c)) &&
        asked_glyphs_.insert(c).second) {
      extra_glyphs_ += utf8;  // rebuild once per new character, even if no font has it
      fonts_dirty_ = true;
    }
  }
}

// ---- settings (save, autosave, language) ------------------------------------------------

std::string AppState::save() {
  if (!opt_.use_settings) return {};
  settings_.last_preset.clear();
  for (const auto& p : panels_) {
    // A lab not restored after an unfinished start keeps its saved preset until it is used.
    auto it = unrestored_.find(p->id());
    const std::string now = p->saved_preset();
    if (it != unrestored_.end() && now == default_preset_[p->id()])
      settings_.last_preset[p->id()] = it->second;
    else
      settings_.last_preset[p->id()] = now;
  }
  try {
    save_settings(config_dir_, settings_);
  } catch (const std::exception& e) {
    const std::string saved_lab = drawing_lab_;
    drawing_lab_.clear();
    report_error(tr("errors.where.saving_settings"), e.what());
    drawing_lab_ = saved_lab;
    return e.what();
  }
  return {};
}

void AppState::autosave(double now_s, double min_interval_s) {
  if (!opt_.use_settings) return;
  // The first call takes the state at start-up (what was just loaded) at once, so a change
  // in the first seconds is compared with it and saved like any other.
  if (!last_saved_.empty() && now_s - last_save_time_ < min_interval_s) return;
  std::string snapshot = settings_snapshot(settings_);  // every field, export_dir too
  for (const auto& p : panels_) snapshot += "|" + p->saved_preset();
  last_save_time_ = now_s;
  ++share_.autosaves;  // the test hook: a test waits for a pass instead of sleeping
  if (snapshot == last_saved_) return;
  const bool first = last_saved_.empty();
  last_saved_ = std::move(snapshot);
  if (!first) save();  // the state at start-up is what was just loaded
}

std::string AppState::finish() {
  std::string error = save();
  start_marker_end(marker_path_);
  marker_path_.clear();
  return error;
}

void AppState::set_language(const std::string& lang) {
  const std::string chosen = lang == "zh" ? "zh" : "en";
  // Never throws: a missing or corrupt file of texts is a banner, and its texts fall back to
  // English (then to the key), so the app always starts and every control stays labelled.
  std::vector<std::string> problems;
  strings_ =
      io::UiStrings::load_lenient(io::i18n_dir(), chosen, problems, embedded_english_texts());
  settings_.language = chosen;
  for (auto& p : panels_) p->set_interface_language(chosen);
  const std::string saved = drawing_lab_;
  drawing_lab_.clear();
  for (const std::string& p : problems)
    // In English on purpose: it is about the interface files themselves (a broken or missing
    // translation), for whoever fixes them.
    report_error("interface texts", p + " (its texts fall back to the built-in English)");
  // A data folder chosen by the environment is the likely cause: say so, once.
  if (!problems.empty() && io::data_dir_rule() == std::string("POSLAB_DATA_DIR"))
    report_error("data folder",
                 io::data_dir() +
                     " comes from POSLAB_DATA_DIR and lacks some of PosLab's data (lessons/, "
                     "assets/): unset POSLAB_DATA_DIR, or point it at a folder that has them");
  drawing_lab_ = saved;
  ensure_glyphs(strings_.all_text() + "中文");
}

// ---- jobs, GL and captures --------------------------------------------------------------

void AppState::cancel_jobs() {
  for (auto& p : panels_) p->cancel_jobs();
}

void AppState::release_gl() {
  for (auto& p : panels_) p->release_gl();
}

void AppState::deliver_captures(int fb_width, int fb_height) {
  const ImVec2 fs = ImGui::GetIO().DisplayFramebufferScale;
  std::vector<CaptureRequest> requests;
  requests.swap(captures_);
  for (auto& r : requests) {
    // ImGui coordinates to framebuffer pixels, clipped to the framebuffer.
    const int x0 = std::clamp(static_cast<int>(std::lround(r.x0 * fs.x)), 0, fb_width);
    const int x1 = std::clamp(static_cast<int>(std::lround(r.x1 * fs.x)), 0, fb_width);
    const int y0 = std::clamp(static_cast<int>(std::lround(r.y0 * fs.y)), 0, fb_height);
    const int y1 = std::clamp(static_cast<int>(std::lround(r.y1 * fs.y)), 0, fb_height);
    if (x1 <= x0 || y1 <= y0) continue;
    r.sink(x1 - x0, y1 - y0, read_screen_rgba(x0, y0, x1 - x0, y1 - y0, fb_height));
  }
}

}  // namespace poslab::app
