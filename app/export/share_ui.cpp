// The Share popup and the File menu's share entries (issue 16): export the active lab's
// main view as PNG (1x or 2x), its numbers as CSV and JSON (what poslab-cli prints), copy
// the exact poslab-cli command and a poslab: preset link. Existing files are replaced only
// after the user says so; every file is written atomically; failures are shown, never lost.
// In the browser build exports are downloads: one Download button per file, no paths.
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <filesystem>

#include "app/app_state.hpp"
#include "app/gfx/gl.hpp"
#include "app/imgui_modal.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::app {
namespace fs = std::filesystem;
namespace {

// Window ids after "###" stay the same in every language.
constexpr const char* kPopupId = "###share";
constexpr const char* kPickerId = "###share_picker";

const char* extension(ShareTarget t) {
  return t == ShareTarget::picture ? ".png" : t == ShareTarget::csv ? ".csv" : ".json";
}

std::string* path_of(ShareUi& s, ShareTarget t) {
  return t == ShareTarget::picture ? &s.picture_path
         : t == ShareTarget::csv   ? &s.csv_path
                                   : &s.json_path;
}

// Where the browser build writes an export before offering it as a download (the page's
// memory; the user never sees this path).
constexpr const char* kDownloadsDir = "/downloads";

std::string default_dir(const Settings& st) {
  std::error_code ec;
  if (!st.export_dir.empty() && fs::is_directory(st.export_dir, ec)) return st.export_dir;
  const std::string pictures = pictures_dir();  // XDG pictures folder, else $HOME
  return !pictures.empty() ? pictures : fs::current_path(ec).string();
}

// Read-only text the user can select by hand, with a Copy button.
bool copy_field(const char* id, const std::string& text, const char* copy_label, float scale) {
  std::string shown = text;
  ImGui::PushID(id);
  ImGui::SetNextItemWidth(-80.0f * scale);
  ImGui::InputText("##text", &shown, ImGuiInputTextFlags_ReadOnly);
  ImGui::SameLine();
  const bool copy = ImGui::Button(copy_label);
  if (copy) ImGui::SetClipboardText(text.c_str());
  ImGui::PopID();
  return copy;
}

// An interface text with {path} and {bytes} filled in.
std::string fill(const char* text, const std::string& path, const std::string& bytes = {}) {
  std::string out = text;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{path}", path},
                                   std::pair<std::string, std::string>{"{bytes}", bytes}})
    if (const auto at = out.find(key); at != std::string::npos) out.replace(at, key.size(), value);
  return out;
}

const char* rects_path() {
  const char* p = std::getenv("POSLAB_WIDGET_RECTS");
  return p && *p ? p : nullptr;
}

// A tooltip is shown in this frame (the test hook, written at the frame's end: GUI tests
// find a point whose hover shows one, such as a dial or an attention cell).
bool tooltip_shown() {
  for (const ImGuiWindow* w : GImGui->Windows)
    if ((w->Flags & ImGuiWindowFlags_Tooltip) && w->Active) return true;
  return false;
}

}  // namespace

void ShareUi::note_item(const char* name) {
  if (!rects_path()) return;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  rects[name] = {a.x, a.y, b.x, b.y};
}

void ShareUi::note_window(const char* name) {
  if (!rects_path()) return;
  const ImVec2 a = ImGui::GetWindowPos(), d = ImGui::GetWindowSize();
  rects[name] = {a.x, a.y, a.x + d.x, a.y + d.y};
}

void ShareUi::write_rects(float view_x0, float view_y0, float view_x1, float view_y1,
                          const std::string& active_lab, bool settled, size_t banners) {
  const char* path = rects_path();
  if (!path) return;
  // What the frame saw of the input, so a test waits for the app to have seen its pointer
  // move, click or key instead of sleeping (tests/gui/x_window.sh): the pointer, counts of
  // frames drawn, clicks (left button released) and key presses, and the frame in which each
  // was last seen. Every input is followed by two more frames (main.cpp's wait_for_work).
  const ImGuiIO& io = ImGui::GetIO();
  ++frames;
  const bool on_window = io.MousePos.x > -FLT_MAX / 2 && io.MousePos.y > -FLT_MAX / 2;
  const std::array<int, 2> at = {on_window ? static_cast<int>(io.MousePos.x) : -1,
                                 on_window ? static_cast<int>(io.MousePos.y) : -1};
  if (at != mouse) mouse_frame = frames;
  mouse = at;
  if (io.MouseReleased[0]) {
    ++clicks;
    click_frame = frames;
  }
  int keys_down = 0;
  for (const float d : io.KeysDownDuration) {
    keys_down += d >= 0.0f ? 1 : 0;  // -1 while up
    if (d == 0.0f) {
      ++keys;
      key_frame = frames;
    }
  }
  nlohmann::json j = {
      {"rects", rects},
      {"display", {static_cast<int>(io.DisplaySize.x), static_cast<int>(io.DisplaySize.y)}},
      {"mouse", mouse},
      {"mouse_down", io.MouseDown[0]},
      {"frame", frames},
      {"mouse_frame", mouse_frame},
      {"clicks", clicks},
      {"click_frame", click_frame},
      {"keys", keys},
      {"key_frame", key_frame},
      {"keys_down", keys_down},
      {"autosaves", autosaves},
      {"paths", {picture_path, csv_path, json_path}},
      {"view", {view_x0, view_y0, view_x1, view_y1}},
      {"lab", lab},
      {"active", active_lab},
      {"settled", settled},
      {"banners", banners},
      {"picture_scale", picture_scale},
      {"confirm", confirm == ShareTarget::none ? std::string() : confirm_path},
      {"status", status},
      {"status_error", status_error},
      {"tooltip", tooltip_shown()}};
  rects.clear();
  // Never throws (it runs in a destructor): bytes that are not UTF-8 (a path) are replaced.
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text == rects_written) return;
  try {
    write_file_atomically(path, text);
    rects_written = std::move(text);
  } catch (const std::exception&) {
    // A test hook only: the test notices a stale file.
  }
}

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

bool AppState::exports_are_downloads() const {
  return static_cast<bool>(opt_.on_file_exported);
}

// The browser build hands each written file over (on_file_exported) and says so by its name;
// the desktop remembers the folder for the next export.
std::string AppState::exported(const std::string& path, const char* saved_text) {
  std::error_code ec;
  const std::string bytes = std::to_string(fs::file_size(path, ec));
  if (exports_are_downloads()) {
    opt_.on_file_exported(path);
    return fill(tr("share.downloaded"), fs::path(path).filename().string(), bytes);
  }
  remember_export_dir(path);
  return fill(saved_text, path, bytes);
}

void AppState::picture_done(const std::string& path, const std::string& error) {
  share_.status_error = !error.empty();
  share_.status = error.empty() ? exported(path, tr("share.saved_picture"))
                                : tr_args(tr("share.problem.picture_failed"), {{"error", error}});
  if (share_.reopen) share_.open_requested = true;  // shows the result where it was asked for
  share_.reopen = false;
  if (!error.empty()) {
    const std::string saved = drawing_lab_;
    drawing_lab_ = settings_.active_lab;
    report_error(tr("share.where.picture"), error);
    drawing_lab_ = saved;
  }
  request_frames(3);
}

std::string AppState::export_picture(const PictureRequest& req, int w, int h,
                                     const std::function<void(int, unsigned)>& draw) {
  const int k = std::clamp(req.scale, 1, 4);
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (w * k > max_size || h * k > max_size)
    return req.path + ": the window is too large for a " + std::to_string(k) +
           "x picture on this GPU (limit " + std::to_string(max_size) + " px)";
  GLuint fbo = 0, colour = 0;
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &colour);
  glBindRenderbuffer(GL_RENDERBUFFER, colour);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w * k, h * k);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
  std::string error;
  RgbImage img;
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    error = req.path + ": could not make an offscreen framebuffer for the picture";
  } else {
    set_capture(true, k);
    // Two frames: the first lays windows out at the new scale, the second is drawn.
    for (int i = 0; i < 2; ++i) draw(k, fbo);
    const ViewRect r = export_rect_;
    const float fx = ImGui::GetIO().DisplayFramebufferScale.x;
    const float fy = ImGui::GetIO().DisplayFramebufferScale.y;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    img = read_pixels(h * k, std::clamp(static_cast<int>(r.x0 * fx), 0, w * k),
                      std::clamp(static_cast<int>(r.y0 * fy), 0, h * k),
                      std::clamp(static_cast<int>(r.x1 * fx), 0, w * k),
                      std::clamp(static_cast<int>(r.y1 * fy), 0, h * k));
    add_caption(img, req.caption, caption_font(), dark_theme());
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &colour);
  glDeleteFramebuffers(1, &fbo);
  set_capture(false, 1);
  if (error.empty()) {
    try {
      write_png(req.path, img);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  picture_done(req.path, error);
  return error;
}

void AppState::remember_export_dir(const std::string& written) {
  std::error_code ec;
  const fs::path dir = fs::absolute(written, ec).parent_path();
  if (!ec) settings_.export_dir = dir.string();  // autosave writes it within seconds
}

std::string AppState::active_cli_command() {
  Panel* p = find_panel(settings_.active_lab);
  if (!p) return {};
  const auto args = p->cli_args();
  return args.empty() ? std::string() : io::cli_command_line(args);
}

std::string AppState::active_preset_link() {
  Panel* p = find_panel(settings_.active_lab);
  return p ? preset_link(p->preset()) : std::string();
}

std::string AppState::preset_link(const std::string& preset) const {
  const std::string uri = preset_uri(preset);
  return opt_.link_base.empty() ? uri : opt_.link_base + "#" + uri.substr(uri.find(':') + 1);
}

bool AppState::open_link(const std::string& uri) {
  try {
    const std::string web = opt_.link_base + "#";  // the browser's own links
    const bool ours = !opt_.link_base.empty() && uri.rfind(web, 0) == 0;
    open_lab(preset_from_uri(ours ? "poslab:" + uri.substr(web.size()) : uri));
    return !last_open_failed_;  // a bad preset inside a good link is on the banner already
  } catch (const std::exception& e) {
    report_error(tr("share.where.link"), tr_error(*this, e));
    return false;
  }
}

void AppState::share_menu_items() {
  Panel* p = find_panel(settings_.active_lab);
  const bool lab = p && p->id() != std::string(kWelcomeName);
  if (ImGui::MenuItem(tr("menu.share"), nullptr, false, lab)) share_.open_requested = true;
  share_.note_item("menu.share");
  const std::string cmd = active_cli_command();
  if (ImGui::MenuItem(tr("menu.copy_command"), nullptr, false, lab && !cmd.empty()))
    ImGui::SetClipboardText(cmd.c_str());
  if (lab && cmd.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    tooltip_show(tr_format(*this, p->cli_note()));
  if (ImGui::MenuItem(tr("menu.copy_link"), nullptr, false, lab))
    ImGui::SetClipboardText(active_preset_link().c_str());
}

void AppState::share_save(Panel& p, ShareTarget t, const std::string& path, bool replace) {
  ShareUi& s = share_;
  s.confirm = ShareTarget::none;
  std::error_code ec;
  if (const Message why = export_path_problem(path); !why.empty()) {
    s.status = path + ": " + tr_format(*this, why);
    s.status_error = true;
    return;
  }
  if (!replace && fs::exists(path, ec)) {
    s.confirm = t;  // asked in the popup: replace or not
    s.confirm_path = path;
    return;
  }
  if (t == ShareTarget::picture) {  // the folder is remembered once the picture is written
    picture_request_ = PictureRequest{path, s.picture_scale, "PosLab  " + p.preset()};
    s.status = tr("share.rendering");
    s.status_error = false;
    s.reopen = true;  // ImGui closes the popup while the picture is rendered without it
    return;
  }
  try {
    write_lab_numbers(p, t == ShareTarget::csv ? path : "", t == ShareTarget::json ? path : "");
    s.status = exported(path, tr("share.saved_file"));
    s.status_error = false;
  } catch (const InputError& e) {  // no numbers now: the lab says why
    s.status = tr_error(*this, e);
    s.status_error = true;
  } catch (const std::exception& e) {  // the write failed (a full disk): core's English reason
    s.status = tr_args(tr("share.problem.write_failed"), {{"error", e.what()}});
    s.status_error = true;
  }
}

void AppState::draw_share(Panel& p) {
  ShareUi& s = share_;
  if (capturing_) return;
  if (s.open_requested) {
    s.open_requested = false;
    if (s.lab != p.id() || s.picture_path.empty()) {
      if (s.lab != p.id()) {  // another lab: the last lab's "Saved ..." is not about this one
        s.status.clear();
        s.status_error = false;
      }
      s.lab = p.id();
      std::error_code ec;
      if (exports_are_downloads()) fs::create_directories(kDownloadsDir, ec);
      const fs::path dir = exports_are_downloads() ? kDownloadsDir : default_dir(settings_);
      s.picture_path = (dir / ("poslab-" + s.lab + ".png")).string();
      s.csv_path = (dir / ("poslab-" + s.lab + ".csv")).string();
      s.json_path = (dir / ("poslab-" + s.lab + ".json")).string();
    }
    s.confirm = ShareTarget::none;
    ImGui::OpenPopup(kPopupId);
  }
  // Height 0 every frame: fits its contents as the question or a status line comes and goes.
  ImGui::SetNextWindowSize(ImVec2(760 * scale_, 0), ImGuiCond_Always);
  const std::string title = std::string(tr("share.title")) + kPopupId;
  // Back after a picture's capture frames, the popup appears in the frame the lab under the
  // cursor may begin a tooltip: begin_popup_modal keeps ImGui 1.86 from aborting (issue 24).
  if (!begin_popup_modal(title.c_str())) return;
  const auto row = [&](ShareTarget t, const char* label, bool enabled) {
    const std::string name = t == ShareTarget::picture ? "picture"
                             : t == ShareTarget::csv   ? "csv"
                                                       : "json";
    ImGui::PushID(static_cast<int>(t));
    ImGui::BeginDisabled(!enabled);
    ImGui::AlignTextToFramePadding();  // the label on the field's line, not above it
    ImGui::TextUnformatted(label);
    ImGui::SameLine(130 * scale_);
    if (exports_are_downloads()) {  // the browser: no paths, no folders; the file is a download
      if (ImGui::Button(tr("share.download"))) share_save(p, t, *path_of(s, t), true);
      s.note_item(("save." + name).c_str());
      ImGui::EndDisabled();
      ImGui::PopID();
      return;
    }
    ImGui::SetNextItemWidth(-190 * scale_);
    ImGui::InputText("##path", path_of(s, t));
    s.note_item(("path." + name).c_str());
    ImGui::SameLine();
    if (ImGui::Button(tr("share.browse"))) {
      s.picking = t;
      file_picker_open_save(s.picker, *path_of(s, t));
    }
    s.note_item(("browse." + name).c_str());
    ImGui::SameLine();
    if (ImGui::Button(tr("share.save"))) share_save(p, t, *path_of(s, t), false);
    s.note_item(("save." + name).c_str());
    ImGui::EndDisabled();
    ImGui::PopID();
  };
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("share.picture_heading"));
  ImGui::RadioButton(tr("share.scale1"), &s.picture_scale, 1);
  s.note_item("scale1");
  ImGui::SameLine();
  ImGui::RadioButton(tr("share.scale2"), &s.picture_scale, 2);
  s.note_item("scale2");
  row(ShareTarget::picture, tr("share.picture"), true);
  ImGui::Separator();
  // The numbers are made when saved (a big attention view is megabytes of JSON).
  ImGui::TextDisabled("%s", tr("share.numbers_heading"));
  row(ShareTarget::csv, tr("share.csv"), true);
  row(ShareTarget::json, tr("share.json"), true);
  if (s.confirm != ShareTarget::none) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
    text_wrapped("%s", fill(tr("share.exists"), s.confirm_path).c_str());  // long paths
    ImGui::PopStyleColor();
    if (ImGui::Button(tr("share.replace"))) share_save(p, s.confirm, s.confirm_path, true);
    s.note_item("replace");
    ImGui::SameLine();
    if (ImGui::Button(tr("share.keep"))) s.confirm = ShareTarget::none;
    s.note_item("keep");
  }
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("share.command_heading"));
  const auto args = p.cli_args();
  const auto copied = [&](const char* what) {
    s.status = what;
    s.status_error = false;
  };
  if (args.empty()) {  // the reason can be long (the dream lab's): wrapped, never cut off
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped("%s", tr_format(*this, p.cli_note()).c_str());
    ImGui::PopStyleColor();
  } else {
    if (copy_field("cmd", io::cli_command_line(args), tr("share.copy"), scale_))
      copied(tr("share.copied_command"));
    s.note_item("copy.cmd");
  }
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr("share.link_heading"));
  if (copy_field("link", preset_link(p.preset()), tr("share.copy"), scale_))
    copied(tr("share.copied_link"));
  s.note_item("copy.link");
  if (!s.status.empty()) {
    ImGui::Separator();
    ImGui::PushTextWrapPos(0);
    if (s.status_error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.4f, 0.4f, 1.0f));
    wrapped_text(s.status);
    if (s.status_error) ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  if (ImGui::Button(tr("share.close"))) ImGui::CloseCurrentPopup();
  s.note_item("close");
  s.note_window("popup");
  std::string chosen;
  if (s.picking != ShareTarget::none &&
      file_picker_draw(s.picker, (std::string(tr("share.save_as")) + kPickerId).c_str(),
                       {extension(s.picking)}, chosen, *this)) {
    *path_of(s, s.picking) = chosen;
    share_save(p, s.picking, chosen, false);
    s.picking = ShareTarget::none;
  }
  if (s.picker.shown_rect[2] > s.picker.shown_rect[0] && rects_path())
    s.rects["picker"] = s.picker.shown_rect;  // the test hook: the Save-as picker's window
  ImGui::EndPopup();
}

}  // namespace poslab::app
