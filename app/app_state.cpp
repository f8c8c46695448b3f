// The shell: menu, tabs of open labs, preset bar, error banner, theme and settings.
#include "app/app_state.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab::app {
namespace {

// A panel threw mid-draw: close whatever it had begun (child windows, groups, ID and
// style stacks) so ImGui's stacks are balanced again, keeping the lab's own child window.
void unwind_to(ImGuiWindow* lab_window) {
  while (ImGui::GetCurrentWindow() != lab_window) {
    ImGui::ErrorCheckEndWindowRecover(nullptr);
    if (ImGui::GetCurrentWindow()->Flags & ImGuiWindowFlags_ChildWindow)
      ImGui::EndChild();
    else
      ImGui::End();
  }
  ImGui::ErrorCheckEndWindowRecover(nullptr);
}

}  // namespace

AppState::AppState(bool headless, std::string lessons_dir)
    : headless_(headless), lessons_dir_(std::move(lessons_dir)) {
  config_dir_ = poslab::app::config_dir();
  data_dir_ = poslab::app::data_dir();
  panels_ = make_panels();
  std::string warning;
  if (!headless_) settings_ = load_settings(config_dir_, warning);
  if (!warning.empty()) report_error("settings", warning);
  // Restore each lab's last state; a preset that no longer loads is reported, not fatal.
  for (auto& p : panels_) {
    auto it = settings_.last_preset.find(p->id());
    if (it == settings_.last_preset.end()) continue;
    try {
      p->load_preset(it->second);
    } catch (const Error& e) {
      report_error(std::string("restoring ") + p->title(), e.what());
    }
  }
  std::erase_if(settings_.open_labs, [&](const std::string& id) { return !find_panel(id); });
  if (settings_.open_labs.empty() && !panels_.empty())
    settings_.open_labs.push_back(panels_.front()->id());
  select_next_ = settings_.active_lab;
}

void AppState::report_error(const std::string& where, const std::string& message) {
  const std::string text = where + ": " + message;
  if (std::find(errors_.begin(), errors_.end(), text) == errors_.end()) errors_.push_back(text);
  if (errors_.size() > 8) errors_.erase(errors_.begin());
  request_frames(2);
}

Panel* AppState::find_panel(const std::string& id) {
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

void AppState::open_lab(const std::string& preset) {
  try {
    const std::string lab = preset_lab(preset);
    Panel* p = find_panel(lab);
    if (!p) throw InputError("no lab called \"" + lab + "\" in this version of PosLab");
    p->load_preset(preset);
    select_lab(lab);
  } catch (const Error& e) {
    report_error("opening a lab", e.what());
  }
}

bool AppState::wants_continuous_frames() {
  if (frames_requested_ > 0) {
    --frames_requested_;
    return true;
  }
  for (const auto& id : settings_.open_labs)
    if (Panel* p = find_panel(id); p && p->animating() && id == settings_.active_lab) return true;
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
  style.ScaleAllSizes(scale_);
  ImGui::GetStyle() = style;
}

void AppState::setup_style(float content_scale) {
  content_scale_ = content_scale > 0 ? content_scale : 1.0f;
  scale_ = settings_.ui_scale > 0 ? settings_.ui_scale : std::clamp(content_scale_, 1.0f, 3.0f);
  fonts_ = load_fonts(scale_, lessons_dir_, extra_glyphs_);
  if (!fonts_.note.empty()) report_error("fonts", fonts_.note);
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

void AppState::save() {
  settings_.last_preset.clear();
  for (const auto& p : panels_) settings_.last_preset[p->id()] = p->preset();
  try {
    save_settings(config_dir_, settings_);
  } catch (const Error& e) {
    report_error("saving settings", e.what());
  }
}

void AppState::autosave(double now_s, double min_interval_s) {
  if (headless_ || now_s - last_save_time_ < min_interval_s) return;
  std::string snapshot = settings_.active_lab + (settings_.dark_theme ? "d" : "l") +
                         format_double(settings_.ui_scale) +
                         std::to_string(settings_.window_width) + "x" +
                         std::to_string(settings_.window_height);
  for (const auto& id : settings_.open_labs) snapshot += "|" + id;
  for (const auto& p : panels_) snapshot += "|" + p->preset();
  last_save_time_ = now_s;
  if (snapshot == last_saved_) return;
  const bool first = last_saved_.empty();
  last_saved_ = std::move(snapshot);
  if (!first) save();  // the state at start-up is what was just loaded
}

void AppState::release_gl() {
  for (auto& p : panels_) p->release_gl();
}

void AppState::draw_menu() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Copy lab preset", "Ctrl+Shift+C"))
      if (Panel* p = find_panel(settings_.active_lab)) ImGui::SetClipboardText(p->preset().c_str());
    if (ImGui::MenuItem("Open preset from clipboard"))
      if (const char* clip = ImGui::GetClipboardText()) open_lab(clip);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_requested_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Labs")) {
    for (auto& p : panels_)
      if (ImGui::MenuItem(p->title(), nullptr, p->id() == settings_.active_lab))
        select_lab(p->id());
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Dark theme", nullptr, settings_.dark_theme)) {
      settings_.dark_theme = true;
      apply_theme();
    }
    if (ImGui::MenuItem("Light theme", nullptr, !settings_.dark_theme)) {
      settings_.dark_theme = false;
      apply_theme();
    }
    ImGui::Separator();
    const float choices[] = {0.0f, 1.0f, 1.25f, 1.5f, 2.0f, 2.5f};
    for (float c : choices) {
      const std::string label =
          c == 0.0f ? "Scale: follow monitor" : "Scale: " + format_double(c) + "x";
      if (ImGui::MenuItem(label.c_str(), nullptr, settings_.ui_scale == c)) {
        settings_.ui_scale = c;
        fonts_dirty_ = true;  // the atlas is rebuilt between frames
      }
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("PosLab: see why position encodings work.");
    ImGui::Text("Settings: %s/settings.json", config_dir_.c_str());
    ImGui::Text("Progress: %s", data_dir_.c_str());
    ImGui::TextUnformatted("Every number shown can be reproduced with poslab-cli.");
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void AppState::draw_banner() {
  if (errors_.empty()) return;
  const ImVec4 bg =
      settings_.dark_theme ? ImVec4(0.45f, 0.12f, 0.12f, 1.0f) : ImVec4(1.0f, 0.85f, 0.85f, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_ChildBg, bg);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("##errors", ImVec2(0, line * (static_cast<float>(errors_.size()) + 0.6f)),
                    true);
  for (const auto& e : errors_) ImGui::TextWrapped("%s", e.c_str());
  ImGui::EndChild();
  ImGui::PopStyleColor();
  ImGui::SameLine();
  if (ImGui::Button("Dismiss")) errors_.clear();
}

void AppState::draw_preset_bar(Panel& p) {
  const std::string current = p.preset();
  ImGui::TextUnformatted("Preset");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 330.0f * scale_);
  const bool entered =
      ImGui::InputText("##preset", &preset_edit_, ImGuiInputTextFlags_EnterReturnsTrue);
  const bool editing = ImGui::IsItemActive();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The lab's whole state as text. Copy it to share or script it\n"
        "(poslab-cli accepts it too); paste one and press Enter to restore it.");
  // Show the current state unless the user is typing in the field.
  if ((!editing && !entered) || preset_edit_for_ != p.id()) {
    preset_edit_ = current;
    preset_edit_for_ = p.id();
  }
  ImGui::SameLine();
  if (ImGui::Button("Apply") || entered) {
    try {
      p.load_preset(preset_edit_);
    } catch (const Error& e) {
      report_error(std::string(p.title()) + " preset", e.what());
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Copy")) ImGui::SetClipboardText(current.c_str());
  ImGui::SameLine();
  if (ImGui::Button("Paste")) {
    if (const char* clip = ImGui::GetClipboardText()) {
      try {
        p.load_preset(clip);
      } catch (const Error& e) {
        report_error(std::string(p.title()) + " preset", e.what());
      }
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset to defaults")) p.load_preset(p.id());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every parameter of this lab back to its default.");
}

void AppState::draw_frame() {
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
  draw_banner();

  if (ImGui::BeginTabBar("##labs",
                         ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
    std::vector<std::string> still_open;
    for (const auto& id : settings_.open_labs) {
      Panel* p = find_panel(id);
      if (!p) continue;
      bool open = true;
      const ImGuiTabItemFlags flags = select_next_ == id ? ImGuiTabItemFlags_SetSelected : 0;
      const std::string label = std::string(p->title()) + "###" + id;
      if (ImGui::BeginTabItem(label.c_str(), &open, flags)) {
        if (settings_.active_lab != id) request_frames(2);
        settings_.active_lab = id;
        draw_preset_bar(*p);
        ImGui::Separator();
        ImGui::BeginChild("##lab", ImVec2(0, 0), false);
        ImGuiWindow* lab_window = ImGui::GetCurrentWindow();
        try {
          p->draw(*this);
        } catch (const Error& e) {
          report_error(p->title(), e.what());
          unwind_to(lab_window);
        } catch (const std::exception& e) {
          report_error(p->title(), std::string("internal error: ") + e.what());
          unwind_to(lab_window);
        }
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
      if (open) still_open.push_back(id);
    }
    settings_.open_labs = still_open;
    select_next_.clear();
    ImGui::EndTabBar();
  }
  if (settings_.open_labs.empty())
    ImGui::TextWrapped("No lab is open. Choose one from the Labs menu.");
  ImGui::End();
}

}  // namespace poslab::app
