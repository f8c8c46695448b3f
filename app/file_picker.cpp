// The file chooser popup (see file_picker.hpp).
#include "app/file_picker.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>

#include "app/app_context.hpp"
#include "app/imgui_modal.hpp"
#include "app/widgets/tooltip.hpp"
#include "app/widgets/tr_args.hpp"

namespace poslab::app {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxEntries = 5000;  // a huge folder is listed in part, with a note

// Why a folder could not be listed, in the user's language (common causes by name; others
// by the system's own text).
std::string file_picker_list_error(const AppContext& ctx, const std::string& dir,
                                   const std::error_code& ec) {
  std::string reason = ec.message();
  if (ec == std::errc::no_such_file_or_directory)
    reason = ctx.tr("files.reason_missing");
  else if (ec == std::errc::permission_denied)
    reason = ctx.tr("files.reason_denied");
  else if (ec == std::errc::not_a_directory)
    reason = ctx.tr("files.reason_not_dir");
  return tr_args(ctx.tr("files.list_failed"), {{"dir", dir}, {"reason", reason}});
}

bool has_extension(const std::string& name, const std::vector<std::string>& exts) {
  for (const auto& e : exts)
    if (name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
      return true;
  return false;
}

void file_picker_list(FilePicker& fp, const std::vector<std::string>& exts, const AppContext& ctx) {
  fp.entries.clear();
  fp.error.clear();
  fp.listed = fp.dir;
  std::error_code ec;
  fs::directory_iterator it(fp.dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    fp.error = file_picker_list_error(ctx, fp.dir, ec);
    return;
  }
  for (; it != end && fp.entries.size() < kMaxEntries; it.increment(ec)) {
    if (ec) break;
    FilePickerEntry e;
    e.name = it->path().filename().string();
    if (e.name.empty() || e.name[0] == '.') continue;  // hidden files
    std::error_code sec;
    const fs::file_status st = it->status(sec);  // stat only: never opens the file
    e.is_dir = !sec && st.type() == fs::file_type::directory;
    e.regular = !sec && st.type() == fs::file_type::regular;
    if (!e.is_dir && !fp.all_files && !has_extension(e.name, exts)) continue;
    if (e.regular) e.size = it->file_size(sec);
    fp.entries.push_back(std::move(e));
  }
  if (fp.entries.size() >= kMaxEntries) fp.error = ctx.tr("files.too_many");
  std::sort(fp.entries.begin(), fp.entries.end(), [](const auto& a, const auto& b) {
    return a.is_dir != b.is_dir ? a.is_dir : a.name < b.name;
  });
}

}  // namespace

void file_picker_open(FilePicker& fp, const std::string& start_path) {
  std::error_code ec;
  fs::path p = start_path.empty() ? fs::current_path(ec) : fs::path(start_path);
  if (!fs::is_directory(p, ec)) p = p.parent_path();
  if (p.empty() || !fs::is_directory(p, ec)) p = fs::current_path(ec);
  fp.dir = fs::absolute(p, ec).lexically_normal().string();
  fp.dir_edit = fp.dir;
  fp.listed.clear();
  fp.open_requested = true;
  fp.save_mode = false;
}

void file_picker_open_save(FilePicker& fp, const std::string& start_path) {
  std::error_code ec;
  const fs::path p(start_path);
  const bool is_dir = !start_path.empty() && fs::is_directory(p, ec);
  file_picker_open(fp, is_dir ? start_path : p.parent_path().string());
  fp.save_mode = true;
  fp.save_name = is_dir ? std::string() : p.filename().string();
}

bool file_picker_draw(FilePicker& fp, const char* title, const std::vector<std::string>& extensions,
                      std::string& chosen, const AppContext& ctx) {
  const float scale = ctx.ui_scale();
  if (fp.open_requested) {
    ImGui::OpenPopup(title);
    fp.open_requested = false;
  }
  ImGui::SetNextWindowSize(ImVec2(620 * scale, 440 * scale), ImGuiCond_Appearing);
  // Resized by its corner, it keeps room for the path, a few entries and the buttons.
  ImGui::SetNextWindowSizeConstraints(ImVec2(360 * scale, 260 * scale), ImVec2(FLT_MAX, FLT_MAX));
  fp.shown_rect = {};
  if (!begin_popup_modal(title)) return false;
  const ImVec2 win_at = ImGui::GetWindowPos(), win_size = ImGui::GetWindowSize();
  fp.shown_rect = {win_at.x, win_at.y, win_at.x + win_size.x, win_at.y + win_size.y};
  bool done = false;
  if (fp.listed != fp.dir) file_picker_list(fp, extensions, ctx);
  if (ImGui::ArrowButton("##up", ImGuiDir_Up)) {
    const fs::path parent = fs::path(fp.dir).parent_path();
    fp.dir = parent.empty() ? std::string("/") : parent.string();
    fp.dir_edit = fp.dir;
  }
  tooltip(ctx.tr("files.parent"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##dir", &fp.dir_edit, ImGuiInputTextFlags_EnterReturnsTrue))
    fp.dir = fp.dir_edit;
  tooltip(ctx.tr("files.dir_tip"));
  const std::string show_all = std::string(ctx.tr("files.show_all")) + "###all_files";
  if (ImGui::Checkbox(show_all.c_str(), &fp.all_files)) fp.listed.clear();
  if (!fp.error.empty()) ImGui::TextDisabled("%s", fp.error.c_str());
  const float footer =
      ImGui::GetFrameHeightWithSpacing() * (fp.save_mode ? 2 : 1) + ImGui::GetStyle().ItemSpacing.y;
  ImGui::BeginChild("##entries", ImVec2(0, -footer), true);
  std::string enter_dir;
  // Folders carry a tag; files are indented by its width so names line up.
  const std::string dir_tag = std::string(ctx.tr("files.dir_tag")) + " ";
  const float tag_width = ImGui::CalcTextSize(dir_tag.c_str()).x;
  for (const FilePickerEntry& e : fp.entries) {
    char size[32] = "";
    if (e.regular) std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(e.size) / 1e6);
    const std::string label = (e.is_dir ? dir_tag : std::string()) + e.name;
    if (!e.is_dir) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + tag_width);
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_DontClosePopups)) {
      if (e.is_dir)
        enter_dir = (fs::path(fp.dir) / e.name).string();
      else if (e.regular && fp.save_mode)
        fp.save_name = e.name;  // replaced only after the caller asks
      else if (e.regular) {
        chosen = (fs::path(fp.dir) / e.name).string();
        done = true;
      }
    }
    if (e.regular) {
      ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 90 * scale);
      ImGui::TextDisabled("%s", size);
    }
  }
  if (fp.entries.empty() && fp.error.empty()) ImGui::TextDisabled("%s", ctx.tr("files.empty"));
  ImGui::EndChild();
  if (!enter_dir.empty()) {
    fp.dir = fs::path(enter_dir).lexically_normal().string();
    fp.dir_edit = fp.dir;
  }
  if (fp.save_mode) {
    ImGui::TextUnformatted(ctx.tr("files.file_name"));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-100 * scale);
    const bool entered =
        ImGui::InputText("##save_name", &fp.save_name, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    const std::string save_here = std::string(ctx.tr("files.save_here")) + "###save_here";
    if ((ImGui::Button(save_here.c_str()) || entered) && !fp.save_name.empty()) {
      chosen = (fs::path(fp.dir) / fp.save_name).string();
      done = true;
    }
  }
  const std::string cancel = std::string(ctx.tr("files.cancel")) + "###cancel";
  if (ImGui::Button(cancel.c_str()) || done) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return done;
}

}  // namespace poslab::app
