// The shell's drawing: the menu, each lab's error banner, the preset bar with Share, the
// lab's tab contents (a panel that throws is unwound and reported) and the whole frame.
// The shell's state (start, banners, opening labs, settings) is in app_state.cpp.
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "app/app_state.hpp"
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

namespace {

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
  // Below its minimum width the lab keeps that width and the page scrolls across, but only
  // below its unscaled minimum: at UI scale 2 a lab wider than the window would lay its grids
  // out for columns nobody sees, so it takes the window's width instead (its control column
  // folds to give the view room). Down, the lab takes the window's height: its panes
  // (control column, view) scroll by themselves, and a page scrolling around them gave two
  // scroll bars side by side and the plots below the fold (issue 40). A lab drawn straight
  // into the page (lessons, welcome) scrolls it by its own content's height.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float min_w = std::min(p.min_width() * scale_, std::max(p.min_width(), avail.x));
  ImGuiWindowFlags lab_flags = 0;
  if (avail.x < min_w) {
    ImGui::SetNextWindowContentSize(ImVec2(min_w, 0.0f));  // height 0: the content's own
    lab_flags |= ImGuiWindowFlags_HorizontalScrollbar;
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
