// The shell: menu, tabs of open labs, preset bar, per-lab error banners, theme, settings,
// and the guards that keep the GUI alive: a panel that throws is unwound and reported, and
// a start after one that did not finish opens the labs in their defaults.
// Sections: limits and the --test-fault hook | start and restored presets | error banners'
// state | opening labs | frames, theme and fonts | settings (save, autosave, language) |
// jobs, GL and captures | drawing (menu, banner, preset bar, lab, frame).
#include "app/app_state.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
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

// ---- limits and the --test-fault hook ---------------------------------------------------

namespace {

constexpr size_t kMaxMessagesPerLab = 4;  // newest kept; older ones of the same lab drop

// The --test-fault hook: open one of every kind of ImGui scope, then fail inside them all.
void inject_fault(TestFault f) {
  // At the top of the visible area, so every scope below really opens.
  const ImVec2 top = ImGui::GetWindowPos(), pad = ImGui::GetStyle().WindowPadding;
  ImGui::SetCursorScreenPos(ImVec2(top.x + pad.x, top.y + pad.y));
  ImGui::BeginChild("##fault_child", ImVec2(200, 120), true);
  ImGui::PushID("fault");
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 0, 0, 255));
  ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.9f);
  ImGui::PushItemWidth(50);
  ImGui::BeginGroup();
  ImGui::BeginDisabled();
  if (ImGui::BeginTable("##fault_table", 2, ImGuiTableFlags_ScrollY)) {
    ImGui::TableNextColumn();
    if (ImGui::BeginTabBar("##fault_tabs")) {
      if (ImGui::BeginTabItem("fault")) {
        ImGui::SetNextItemOpen(true);
        if (ImGui::TreeNode("fault node")) {
          ImGui::OpenPopup("##fault_popup");
          if (ImGui::BeginPopup("##fault_popup")) {
            ImGui::TextUnformatted("fault");
            if (f == TestFault::abort_process) std::abort();
            throw InputError("test fault injected after drawing (--test-fault)");
          }
        }
      }
    }
  }
  throw InputError("test fault: a scope did not open");
}

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
    const int x0 = std::clamp(static_cast<int>(r.x0 * fs.x + 0.5f), 0, fb_width);
    const int x1 = std::clamp(static_cast<int>(r.x1 * fs.x + 0.5f), 0, fb_width);
    const int y0 = std::clamp(static_cast<int>(r.y0 * fs.y + 0.5f), 0, fb_height);
    const int y1 = std::clamp(static_cast<int>(r.y1 * fs.y + 0.5f), 0, fb_height);
    if (x1 <= x0 || y1 <= y0) continue;
    r.sink(x1 - x0, y1 - y0, read_screen_rgba(x0, y0, x1 - x0, y1 - y0, fb_height));
  }
}

// ---- drawing (menu, banner, preset bar, lab, frame) -------------------------------------

void AppState::draw_menu() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu(tr("menu.file"))) {
    if (ImGui::MenuItem(tr("menu.copy_preset"), "Ctrl+Shift+C"))
      if (Panel* p = find_panel(settings_.active_lab)) ImGui::SetClipboardText(p->preset().c_str());
    if (ImGui::MenuItem(tr("menu.open_clipboard")))
      paste([this](const std::string& clip) { open_lab(clip); });
    share_menu_items();
    ImGui::Separator();
    if (ImGui::MenuItem(tr("menu.quit"), "Ctrl+Q")) quit_requested_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("menu.labs"))) {
    for (auto& p : panels_)
      if (ImGui::MenuItem(lab_title(*p), nullptr, p->id() == settings_.active_lab))
        select_lab(p->id());
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("menu.view"))) {
    if (ImGui::MenuItem(tr("menu.dark"), nullptr, settings_.dark_theme)) {
      settings_.dark_theme = true;
      apply_theme();
    }
    if (ImGui::MenuItem(tr("menu.light"), nullptr, !settings_.dark_theme)) {
      settings_.dark_theme = false;
      apply_theme();
    }
    ImGui::Separator();
    const float choices[] = {0.0f, 1.0f, 1.25f, 1.5f, 2.0f, 2.5f};
    for (float c : choices) {
      const std::string label = c == 0.0f
                                    ? std::string(tr("menu.scale_monitor"))
                                    : std::string(tr("menu.scale")) + ": " + format_double(c) + "x";
      if (ImGui::MenuItem(label.c_str(), nullptr, settings_.ui_scale == c)) {
        settings_.ui_scale = c;
        fonts_dirty_ = true;  // the atlas is rebuilt between frames
      }
    }
    ImGui::Separator();
    if (ImGui::BeginMenu(tr("menu.language"))) {
      if (ImGui::MenuItem("English", nullptr, settings_.language == "en")) set_language("en");
      if (ImGui::MenuItem("中文", nullptr, settings_.language == "zh")) set_language("zh");
      ImGui::EndMenu();
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("menu.help"))) {
    if (ImGui::MenuItem(tr("menu.getting_started"))) select_lab(kWelcomeName);
    if (ImGui::MenuItem(tr("menu.lessons"))) select_lab("lessons");
    ImGui::Separator();
    ImGui::TextUnformatted(tr("help.about"));
    ImGui::Text("%s: %s/settings.json", tr("help.settings"), config_dir_.c_str());
    ImGui::Text("%s: %s", tr("help.progress"), data_dir_.c_str());
    ImGui::TextUnformatted(tr("help.cli"));
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

// Messages for `lab` (and shell-wide ones), each wrapped in full with its own dismiss
// button, on a tinted background sized to the text.
void AppState::draw_banner(const std::string& lab) {
  std::vector<size_t> shown;
  for (size_t i = 0; i < banner_.size(); ++i)
    if (banner_[i].lab.empty() || banner_[i].lab == lab) shown.push_back(i);
  if (shown.empty()) return;
  const ImVec4 bg =
      settings_.dark_theme ? ImVec4(0.45f, 0.12f, 0.12f, 1.0f) : ImVec4(1.0f, 0.85f, 0.85f, 1.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(0, st.FramePadding.y * 0.5f));
  size_t remove = banner_.size();
  for (size_t i : shown) {
    ImGui::PushID(static_cast<int>(i));
    ImGui::Indent(st.FramePadding.x);
    if (ImGui::SmallButton(tr("banner.dismiss"))) remove = i;
    tooltip(tr("banner.dismiss_tip"));
    ImGui::SameLine();
    ImGui::PushTextWrapPos(ImGui::GetCursorPos().x +
                           std::max(100.0f, width - ImGui::GetCursorPos().x - st.FramePadding.x));
    wrapped_text(banner_[i].text);
    ImGui::PopTextWrapPos();
    ImGui::Unindent(st.FramePadding.x);
    ImGui::PopID();
  }
  if (!unrestored_.empty() && std::any_of(shown.begin(), shown.end(), [&](size_t i) {
        return banner_[i].lab.empty() && banner_[i].text == start_notice_;
      })) {
    ImGui::Indent(st.FramePadding.x);
    if (ImGui::SmallButton(tr("banner.restore"))) {
      for (const auto& [id, preset] : std::map<std::string, std::string>(unrestored_)) {
        Panel* p = find_panel(id);
        if (!p) continue;
        drawing_lab_ = id;
        try {
          p->load_preset(preset);
          p->trust_named_files();
        } catch (const std::exception& e) {
          report_error(tr_args(tr("errors.where.restoring"), {{"lab", lab_title(*p)}}),
                       tr_error(*this, e));
        }
        drawing_lab_.clear();
      }
      unrestored_.clear();
      std::erase_if(banner_, [this](const BannerMessage& m) {
        return m.lab.empty() && m.text == start_notice_;
      });
    }
    ImGui::Unindent(st.FramePadding.x);
  }
  ImGui::Dummy(ImVec2(width, st.FramePadding.y * 0.5f));
  ImGui::EndGroup();
  dl->ChannelsSetCurrent(0);
  const ImVec2 bottom = ImGui::GetItemRectMax();
  dl->AddRectFilled(top, ImVec2(top.x + width, bottom.y), ImGui::GetColorU32(bg), st.FrameRounding);
  dl->ChannelsMerge();
  if (remove < banner_.size()) banner_.erase(banner_.begin() + static_cast<std::ptrdiff_t>(remove));
}

void AppState::draw_preset_bar(Panel& p) {
  const std::string current = p.preset();
  if (auto it = came_from_.find(p.id()); it != came_from_.end()) {
    if (Panel* back = find_panel(it->second)) {
      const std::string label = std::string(tr("preset.back")) + " " + lab_title(*back) + "###back";
      if (ImGui::Button(label.c_str())) {
        select_lab(back->id());
        came_from_.erase(it);
      } else if (ImGui::IsItemHovered()) {
        tooltip_show(tr("preset.back_tip"));
      }
      ImGui::SameLine();
    }
  }
  ImGui::TextUnformatted(tr("preset.label"));
  ImGui::SameLine();
  // The buttons after the field; when they would leave the field less than 420 px (a
  // narrow window, UI scale 2) the field takes the whole line and the buttons go below.
  const ImGuiStyle& st = ImGui::GetStyle();
  float buttons_w = 0;
  for (const char* key :
       {"preset.apply", "preset.copy", "preset.paste", "preset.reset", "preset.share"})
    buttons_w += ImGui::CalcTextSize(tr(key)).x + 2 * st.FramePadding.x + st.ItemSpacing.x;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const bool buttons_below = avail_w - buttons_w < 420.0f * scale_;
  ImGui::SetNextItemWidth(buttons_below ? avail_w : avail_w - buttons_w);
  const bool entered =
      ImGui::InputText("##preset", &preset_edit_, ImGuiInputTextFlags_EnterReturnsTrue);
  const bool editing = ImGui::IsItemActive();
  tooltip(tr("preset.tip"));
  // Show the current state unless the user is typing in the field.
  if ((!editing && !entered) || preset_edit_for_ != p.id()) {
    preset_edit_ = current;
    preset_edit_for_ = p.id();
  }
  // By value (a Paste in the browser runs it at a later frame); the panels live as long as
  // the app state.
  const auto load = [this, panel = &p](const std::string& text) {
    try {
      panel->load_preset(text);
      unrestored_.erase(panel->id());
      // A state the user just chose and that loads: earlier messages of the lab are stale.
      std::erase_if(banner_, [&](const BannerMessage& m) { return m.lab == panel->id(); });
    } catch (const std::exception& e) {
      report_error(tr_args(tr("errors.where.preset"), {{"lab", lab_title(*panel)}}),
                   tr_error(*this, e));
    }
  };
  if (!buttons_below) ImGui::SameLine();
  if (ImGui::Button(tr("preset.apply")) || entered) load(preset_edit_);
  ImGui::SameLine();
  if (ImGui::Button(tr("preset.copy"))) ImGui::SetClipboardText(current.c_str());
  ImGui::SameLine();
  if (ImGui::Button(tr("preset.paste"))) paste(load);
  ImGui::SameLine();
  if (ImGui::Button(tr("preset.reset"))) load(p.id());
  tooltip(tr("preset.reset_tip"));
  ImGui::SameLine();
  if (ImGui::Button(tr("preset.share"))) share_.open_requested = true;
  share_.note_item("open");
  tooltip(tr("preset.share_tip"));
  draw_share(p);
}

// One lab's tab contents. Everything the panel draws happens inside the "##lab" child; an
// exception unwinds exactly what the panel began (the shell's tab bar, tab item and child
// stay open) and becomes a message on this lab's banner.
void AppState::draw_lab(Panel& p) {
  drawing_lab_ = p.id();
  if (p.id() != std::string(kWelcomeName)) draw_preset_bar(p);
  if (const LabGuide* g = find_lab_guide(p.id())) {
    // What am I looking at, and where it is explained.
    if (g->lesson) {
      if (ImGui::SmallButton(tr("lab.lesson"))) open_lab(g->lesson);
      tooltip(tr("lab.lesson_tip"));
      ImGui::SameLine();
    }
    ImGui::PushTextWrapPos(0.0f);
    const std::string key = std::string("guide.") + g->id;
    ImGui::TextDisabled("%s", strings_.has(key) ? tr(key.c_str()) : g->summary);
    ImGui::PopTextWrapPos();
  }
  draw_banner(p.id());
  ImGui::Separator();
  // Below its minimum size the lab keeps that size and the area scrolls. Across, the lab
  // scrolls only below its unscaled minimum: at UI scale 2 a lab wider than the window would
  // lay its grids out for columns nobody sees, so it takes the window's width instead (its
  // control column folds to give the view room); down, the page scrolls.
  // When the page scrolls down, its scrollbar takes width: the lab gets the visible width,
  // else its right edge (header text, plots) would sit under the scrollbar.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float min_h = p.min_height() * scale_;
  const float bar = ImGui::GetStyle().ScrollbarSize;
  const bool tall = avail.y < min_h;
  const float visible_w = avail.x - (tall ? bar : 0);
  const float min_w = std::min(p.min_width() * scale_, std::max(p.min_width(), visible_w));
  ImGuiWindowFlags lab_flags = 0;
  if (visible_w < min_w || tall) {
    const bool scroll_x = visible_w < min_w;
    const bool scroll_y = tall || avail.y - (scroll_x ? bar : 0) < min_h;
    ImGui::SetNextWindowContentSize(ImVec2(std::max(avail.x - (scroll_y ? bar : 0), min_w),
                                           std::max(avail.y - (scroll_x ? bar : 0), min_h)));
    if (scroll_x) lab_flags |= ImGuiWindowFlags_HorizontalScrollbar;
  }
  ImGui::BeginChild("##lab", ImVec2(0, 0), false, lab_flags);
  const ImGuiScopeMark mark = imgui_scope_mark();
  bool failed = false;
  try {
    p.draw(*this);
    if (fault_ != TestFault::none && fault_lab_ == p.id()) inject_fault(fault_);
  } catch (const Error& e) {
    failed = true;
    report_error(lab_title(p), tr_error(*this, e));
  } catch (const std::exception& e) {
    failed = true;
    report_error(lab_title(p), tr_args(tr("errors.app.internal"), {{"what", e.what()}}));
  }
  if (failed && !imgui_unwind_to(mark)) {
    // The panel ended more than it began: the stacks cannot be trusted for this frame.
    report_error(lab_title(p), tr("errors.app.unbalanced"));
    try {
      p.load_preset(p.id());
    } catch (const std::exception&) {
    }
  }
  ImGui::EndChild();
  const ViewRect view = p.main_view_rect();
  export_rect_ = view.empty() ? last_item_rect() : view;
  clear_resolved_errors(p);
  drawing_lab_.clear();
}

bool AppState::developer() const {
  const char* v = std::getenv("POSLAB_DEVELOPER");
  return v && std::string(v) == "1";
}

// The clipboard's text to `use`: ImGui's at once on the desktop; in the browser when its
// asynchronous read answers (finish_paste, at a later frame's start), or one line saying why
// it could not be read.
void AppState::paste(std::function<void(const std::string&)> use) {
  if (!opt_.read_clipboard) {
    if (const char* clip = ImGui::GetClipboardText()) use(clip);
    return;
  }
  pending_paste_ = std::move(use);
  opt_.read_clipboard();
}

void AppState::finish_paste() {
  if (!pending_paste_ || !opt_.take_clipboard) return;
  auto answer = opt_.take_clipboard();
  if (!answer) return;
  auto use = std::exchange(pending_paste_, nullptr);
  if (answer->first)
    use(answer->second);
  else
    report_error(tr("errors.where.clipboard"),
                 tr_args(tr("errors.app.clipboard_denied"), {{"why", answer->second}}));
  request_frames(2);
}

void AppState::draw_frame() {
  if (!pending_language_.empty()) {  // a lab's language switch (the lessons' radios)
    set_language(std::exchange(pending_language_, std::string()));
    request_frames(2);
  }
  finish_paste();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus |
      ImGuiWindowFlags_NoBackground;  // the clear colour is the background:
                                      // one full-screen fill less per frame
  ImGui::Begin("PosLab", nullptr, host);
  draw_menu();
  ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && ImGui::IsKeyPressed(81 /* GLFW_KEY_Q */, false)) quit_requested_ = true;

  if (ImGui::BeginTabBar("##labs",
                         ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
    // Iterate over a copy: a lab's link may open another lab (append to open_labs) while
    // the loop runs. The new tab is submitted next frame, selected then.
    const std::vector<std::string> labs = settings_.open_labs;
    std::vector<std::string> closed;
    const std::string select = select_next_;
    bool selected_seen = false;
    // Every tab stays in sight (a projector, UI scale 2): when the full titles do not fit
    // the window, the tabs take their short titles ([short] in shell.toml) instead of
    // scrolling behind arrows.
    const ImGuiStyle& st = ImGui::GetStyle();
    float full_w = 0;
    for (const auto& id : labs)
      if (const Panel* p = find_panel(id))
        full_w += ImGui::CalcTextSize(lab_title(*p)).x + 2 * st.FramePadding.x +
                  st.ItemInnerSpacing.x + ImGui::GetFontSize() + st.ItemSpacing.x;
    const bool short_titles = full_w > ImGui::GetContentRegionAvail().x;
    for (const auto& id : labs) {
      Panel* p = find_panel(id);
      if (!p) continue;
      bool open = true;
      const bool select_this = select == id;
      const ImGuiTabItemFlags flags = select_this ? ImGuiTabItemFlags_SetSelected : 0;
      selected_seen |= select_this;
      const std::string short_key = "short." + id;
      const char* title =
          short_titles && strings_.has(short_key) ? strings_.get(short_key).c_str() : lab_title(*p);
      const std::string label = std::string(title) + "###" + id;
      if (ImGui::BeginTabItem(label.c_str(), &open, flags)) {
        if (settings_.active_lab != id) request_frames(2);
        settings_.active_lab = id;
        draw_lab(*p);
        ImGui::EndTabItem();
      }
      if (!open) closed.push_back(id);
    }
    std::erase_if(settings_.open_labs, [&](const std::string& id) {
      return std::find(closed.begin(), closed.end(), id) != closed.end();
    });
    // Consumed only if its tab was submitted with the flag; a lab opened during the loop
    // (select_next_ changed) is selected on the next frame.
    if (selected_seen && select_next_ == select) select_next_.clear();
    if (!select_next_.empty()) request_frames(2);
    ImGui::EndTabBar();
  }
  if (settings_.open_labs.empty()) {
    draw_banner("");
    text_wrapped("%s", tr("lab.none_open"));
  }
  ImGui::End();
  // A modal whose lab was not drawn (tab left, picture being rendered) would make every new
  // window abort in ImGui 1.86 until drawn again: closed instead (issue 24).
  close_undrawn_modals();
  settle_window_sizes();
  share_.write_rects(export_rect_.x0, export_rect_.y0, export_rect_.x1, export_rect_.y1,
                     settings_.active_lab, frames_requested_ == 0, banner_.size());
}

// A window that fits its contents (the Share popup, other popups) takes its size over the
// frames after it appears or its contents change. An idle app draws only a couple of frames
// after an event, which a loaded machine can spend before the size has settled, leaving a
// popup at its first-frame size until the next event: one more frame while any window's
// size still changes.
void AppState::settle_window_sizes() {
  std::vector<WindowSize> sizes;
  for (const ImGuiWindow* w : GImGui->Windows)
    if (w->Active) sizes.push_back({w->ID, w->Size.x, w->Size.y});
  if (sizes != window_sizes_) request_frames(1);
  window_sizes_ = std::move(sizes);
}

}  // namespace poslab::app
