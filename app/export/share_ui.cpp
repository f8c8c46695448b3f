// The Share popup and the File menu's share entries (issue 16): export the active lab's
// main view as PNG (1x or 2x), its numbers as CSV and JSON (what poslab-cli prints), copy
// the exact poslab-cli command and a poslab: preset link. Existing files are replaced only
// after the user says so; every file is written atomically; failures are shown, never lost.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdlib>
#include <filesystem>

#include "app/app_state.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "core/common/errors.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::app {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPopup = "Share this view###share";
constexpr const char* kPicker = "Save as###share_picker";

const char* extension(ShareTarget t) {
  return t == ShareTarget::picture ? ".png" : t == ShareTarget::csv ? ".csv" : ".json";
}

std::string* path_of(ShareUi& s, ShareTarget t) {
  return t == ShareTarget::picture ? &s.picture_path
         : t == ShareTarget::csv   ? &s.csv_path
                                   : &s.json_path;
}

std::string default_dir(const Settings& st) {
  std::error_code ec;
  if (!st.export_dir.empty() && fs::is_directory(st.export_dir, ec)) return st.export_dir;
  const char* home = std::getenv("HOME");
  return home && *home ? home : fs::current_path(ec).string();
}

// Read-only text the user can select by hand, with a Copy button.
void copy_field(const char* id, const std::string& text, float scale) {
  std::string shown = text;
  ImGui::PushID(id);
  ImGui::SetNextItemWidth(-80.0f * scale);
  ImGui::InputText("##text", &shown, ImGuiInputTextFlags_ReadOnly);
  ImGui::SameLine();
  if (ImGui::Button("Copy")) ImGui::SetClipboardText(text.c_str());
  ImGui::PopID();
}

}  // namespace

std::optional<PictureRequest> AppState::take_picture_request() {
  auto r = std::move(picture_request_);
  picture_request_.reset();
  return r;
}

void AppState::set_capture(bool on, int k) {
  capturing_ = on;
  if (k != export_scale_) {
    export_scale_ = k;
    fonts_dirty_ = true;  // rebuilt at the new scale before the next frame
  }
}

void AppState::picture_done(const std::string& path, const std::string& error) {
  share_.status_error = !error.empty();
  share_.status = error.empty() ? "Saved the picture to " + path : error;
  if (!error.empty()) {
    const std::string saved = drawing_lab_;
    drawing_lab_ = settings_.active_lab;
    report_error("export picture", error);
    drawing_lab_ = saved;
  }
  request_frames(3);
}

std::string AppState::active_cli_command() {
  Panel* p = find_panel(settings_.active_lab);
  if (!p) return {};
  const auto args = p->cli_args();
  return args.empty() ? std::string() : io::cli_command_line(args);
}

std::string AppState::active_preset_link() {
  Panel* p = find_panel(settings_.active_lab);
  return p ? preset_uri(p->preset()) : std::string();
}

bool AppState::open_link(const std::string& uri) {
  try {
    open_lab(preset_from_uri(uri));
    return !last_open_failed_;  // a bad preset inside a good link is on the banner already
  } catch (const std::exception& e) {
    report_error("opening a link", e.what());
    return false;
  }
}

void AppState::share_menu_items() {
  Panel* p = find_panel(settings_.active_lab);
  const bool lab = p && p->id() != std::string(kWelcomeName);
  if (ImGui::MenuItem(tr("menu.share"), nullptr, false, lab)) share_.open_requested = true;
  const std::string cmd = active_cli_command();
  if (ImGui::MenuItem(tr("menu.copy_command"), nullptr, false, lab && !cmd.empty()))
    ImGui::SetClipboardText(cmd.c_str());
  if (lab && cmd.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", p->cli_note().c_str());
  if (ImGui::MenuItem(tr("menu.copy_link"), nullptr, false, lab))
    ImGui::SetClipboardText(active_preset_link().c_str());
}

void AppState::share_save(Panel& p, ShareTarget t, const std::string& path, bool replace) {
  ShareUi& s = share_;
  s.confirm = ShareTarget::none;
  std::error_code ec;
  if (const std::string why = export_path_problem(path); !why.empty()) {
    s.status = path + ": " + why;
    s.status_error = true;
    return;
  }
  if (!replace && fs::exists(path, ec)) {
    s.confirm = t;  // asked in the popup: replace or not
    s.confirm_path = path;
    return;
  }
  settings_.export_dir = fs::absolute(path, ec).parent_path().string();
  if (t == ShareTarget::picture) {
    picture_request_ = PictureRequest{path, s.picture_scale, "PosLab  " + p.preset()};
    s.status = "Rendering the picture...";
    s.status_error = false;
    ImGui::CloseCurrentPopup();  // the picture must not show this popup
    return;
  }
  try {
    write_lab_numbers(p, t == ShareTarget::csv ? path : "", t == ShareTarget::json ? path : "");
    s.status = "Saved " + path + " (" + std::to_string(fs::file_size(path, ec)) + " bytes)";
    s.status_error = false;
  } catch (const std::exception& e) {
    s.status = e.what();
    s.status_error = true;
  }
}

void AppState::draw_share(Panel& p) {
  ShareUi& s = share_;
  if (capturing_) return;
  if (s.open_requested) {
    s.open_requested = false;
    if (s.lab != p.id() || s.picture_path.empty()) {
      s.lab = p.id();
      const fs::path dir = default_dir(settings_);
      s.picture_path = (dir / ("poslab-" + s.lab + ".png")).string();
      s.csv_path = (dir / ("poslab-" + s.lab + ".csv")).string();
      s.json_path = (dir / ("poslab-" + s.lab + ".json")).string();
    }
    s.confirm = ShareTarget::none;
    ImGui::OpenPopup(kPopup);
  }
  ImGui::SetNextWindowSize(ImVec2(760 * scale_, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(kPopup, nullptr)) return;
  const auto row = [&](ShareTarget t, const char* label, bool enabled) {
    ImGui::PushID(static_cast<int>(t));
    ImGui::BeginDisabled(!enabled);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(130 * scale_);
    ImGui::SetNextItemWidth(-190 * scale_);
    ImGui::InputText("##path", path_of(s, t));
    ImGui::SameLine();
    if (ImGui::Button("Browse...")) {
      s.picking = t;
      file_picker_open_save(s.picker, *path_of(s, t));
    }
    ImGui::SameLine();
    if (ImGui::Button("Save")) share_save(p, t, *path_of(s, t), false);
    ImGui::EndDisabled();
    ImGui::PopID();
  };
  ImGui::Separator();
  ImGui::TextDisabled("Picture of the main view (PNG, caption: the preset)");
  ImGui::RadioButton("1x screen resolution", &s.picture_scale, 1);
  ImGui::SameLine();
  ImGui::RadioButton("2x (re-rendered at twice the UI scale: crisp on slides)", &s.picture_scale,
                     2);
  row(ShareTarget::picture, "Picture", true);
  ImGui::Separator();
  // The numbers are made when saved (a big attention view is megabytes of JSON).
  ImGui::TextDisabled("Numbers the view shows (CSV tables; the JSON poslab-cli prints)");
  row(ShareTarget::csv, "CSV tables", true);
  row(ShareTarget::json, "CLI's JSON", true);
  if (s.confirm != ShareTarget::none) {
    ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), "%s already exists. Replace it?",
                       s.confirm_path.c_str());
    if (ImGui::Button("Replace")) share_save(p, s.confirm, s.confirm_path, true);
    ImGui::SameLine();
    if (ImGui::Button("Keep it")) s.confirm = ShareTarget::none;
  }
  ImGui::Separator();
  ImGui::TextDisabled("The poslab-cli command that prints these numbers");
  const auto args = p.cli_args();
  if (args.empty())
    ImGui::TextDisabled("%s", p.cli_note().c_str());
  else
    copy_field("cmd", io::cli_command_line(args), scale_);
  ImGui::Separator();
  ImGui::TextDisabled("Preset link (opens this lab in this state: poslab 'poslab:...')");
  copy_field("link", preset_uri(p.preset()), scale_);
  if (!s.status.empty()) {
    ImGui::Separator();
    ImGui::PushTextWrapPos(0);
    if (s.status_error)
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f), "%s", s.status.c_str());
    else
      ImGui::TextUnformatted(s.status.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
  std::string chosen;
  if (s.picking != ShareTarget::none &&
      file_picker_draw(s.picker, kPicker, {extension(s.picking)}, chosen, scale_)) {
    *path_of(s, s.picking) = chosen;
    share_save(p, s.picking, chosen, false);
    s.picking = ShareTarget::none;
  }
  ImGui::EndPopup();
}

}  // namespace poslab::app
