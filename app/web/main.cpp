// PosLab in the browser: the desktop app's AppState, panels and ImGui frame driven by
// emscripten's main loop instead of main.cpp's blocking loop (POSLAB_WEB builds this file
// in place of main.cpp). The page's URL hash is the preset (…/poslab.html#rope?dim=64): it
// opens that lab at start and when it changes, and follows the active lab's state, so the
// address bar is always a link to what is on screen. Settings and lesson progress persist in
// the browser: the user folders (core/common/user_dirs) are IndexedDB-backed (IDBFS), loaded
// before the app starts and stored after each atomic write. Tests read the page through the
// exported functions below (tests/web/). Single-threaded: background jobs run inline.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app/app_state.hpp"
#include "app/gfx/font_texture.hpp"
#include "app/gfx/gl.hpp"
#include "app/settings.hpp"
#include "io/data/data_dir.hpp"

namespace {

using poslab::app::AppState;

// What lives between frames. One instance, owned by main() for the page's life; emscripten
// calls the frame and the exported functions without a user pointer, hence the global.
// A labelled item ImGui drew (button, radio, checkbox, menu item...), where the page shows
// it: tests click them as a user would (poslab_web_items).
struct DrawnItem {
  std::string label;  // as given to ImGui, "##" suffix included
  std::string window;
  ImRect rect;  // visible part, CSS pixels of the canvas
  bool disabled = false;
};

struct WebApp {
  GLFWwindow* window = nullptr;
  std::unique_ptr<AppState> state;  // made once the user folders are loaded (start_app)
  bool record_items = false;        // poslab_web_items was asked for: keep the lists
  ImRect last_item_rect;            // the item ImGui added last (ItemAdd precedes ItemInfo)
  ImGuiID last_item_id = 0;
  std::vector<DrawnItem> items, shown_items;  // this frame's, the last finished frame's
  long frames = 0;
  std::deque<double> frame_ms;  // CPU time of the last frames (UI + GL calls), ms
  std::string shown_preset;     // the preset last written to the address bar
  std::string reply;            // the exported functions' last answer (kept alive for JS)
  std::string clipboard;        // what PosLab copied last (the browser's is write-only here)
  enum class Cjk { none, fetching, ready, failed } cjk = Cjk::none;  // the Chinese font
};

// A file beside the page (`url`, relative to it) fetched into `file` in the page's memory
// (Module.poslabFetch in page.js): the first call starts it; then 0 while it runs, 1 once
// the file is written whole, 2 when it failed (fetch_error says why).
enum class Fetch { running = 0, ready = 1, failed = 2 };
Fetch fetch_file(const std::string& url, const std::string& file) {
  return static_cast<Fetch>(
      EM_ASM_INT({ return Module.poslabFetch(UTF8ToString($0), UTF8ToString($1)); }, url.c_str(),
                 file.c_str()));
}
std::string fetch_error(const std::string& file) {
  const std::string js = "Module.poslabFetchErrors[" + nlohmann::json(file).dump() + "] || ''";
  const char* s = emscripten_run_script_string(js.c_str());
  return s ? s : "";
}

// The Chinese font is not preloaded (5 MB): it is fetched when Chinese is first chosen,
// written where the desktop app finds it (app/fonts.cpp), and the fonts are rebuilt.
constexpr const char* kCjkFont = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
constexpr const char* kCjkFontUrl = "fonts/wqy-microhei.ttc";

// AppContext::fetch_files: a file of the data folder (/poslab, POSLAB_DATA_DIR) lies at the
// same relative path beside the page (web_app.cmake puts the length lab's models there).
poslab::app::FileFetch fetch_data_files(const std::vector<std::string>& paths) {
  constexpr std::string_view root = "/poslab/";
  poslab::app::FileFetch f;
  f.files = static_cast<int>(paths.size());
  for (const std::string& p : paths) {
    std::error_code ec;
    Fetch state = Fetch::ready;
    if (!std::filesystem::exists(p, ec)) {
      if (p.rfind(root, 0) != 0) {
        f.error += (f.error.empty() ? "" : "; ") + p + ": not in the page's data folder";
        continue;
      }
      state = fetch_file(p.substr(root.size()), p);
    }
    if (state == Fetch::running) f.done = false;
    if (state == Fetch::ready) ++f.fetched;
    if (state == Fetch::failed)
      f.error += (f.error.empty() ? "could not fetch " : "; ") + fetch_error(p);
  }
  return f;
}

WebApp* g_app = nullptr;

// The user folders on IndexedDB (Module.poslabMount in page.js: read back before the app
// starts, stored after each atomic write into them).
void mount_user_dirs() {
  const std::string config = poslab::app::config_dir(), data = poslab::app::data_dir();
  EM_ASM({ Module.poslabMount(UTF8ToString($0), UTF8ToString($1)); }, config.c_str(), data.c_str());
}

// The page's hash without '#', percent-decoded ("" when none).
std::string location_preset() {
  const char* s =
      emscripten_run_script_string("decodeURIComponent(window.location.hash.replace(/^#/, ''))");
  return s ? s : "";
}

void fit_canvas(GLFWwindow* w) {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  int cw = 0, ch = 0;
  glfwGetWindowSize(w, &cw, &ch);
  if (css_w >= 1 && css_h >= 1 && (static_cast<int>(css_w) != cw || static_cast<int>(css_h) != ch))
    glfwSetWindowSize(w, static_cast<int>(css_w), static_cast<int>(css_h));
}

// A file the Share popup wrote (in the page's memory) handed to the user as a download.
void offer_download(const std::string& path) {
  EM_ASM({ Module.poslabDownload(UTF8ToString($0)); }, path.c_str());
}

// ImGui's copy goes to the browser's clipboard too (navigator.clipboard: the page must be
// focused, as it is right after the click that copied). Paste reads only PosLab's own copy:
// the browser lets a page read its clipboard only asynchronously, after asking the user.
void set_clipboard(void*, const char* text) {
  g_app->clipboard = text ? text : "";
  EM_ASM({ Module.poslabCopy(UTF8ToString($0)); }, g_app->clipboard.c_str());
}
const char* get_clipboard(void*) {
  return g_app->clipboard.c_str();
}

// The app itself, once the user folders are loaded: settings and progress as the desktop
// app reads them, then the lab the page's URL names.
void start_app(WebApp& app) {
  poslab::app::AppStateOptions aso;
  aso.start_marker = false;  // a reload is how a page ends: nothing to remove the marker
  aso.lessons_dir = poslab::io::lessons_dir();
  const char* page = emscripten_run_script_string("location.href.split('#')[0]");
  aso.link_base = page ? page : "";
  aso.on_file_exported = offer_download;
  aso.fetch_files = fetch_data_files;
  aso.open_file_picker = [](const std::string& accept) {
    EM_ASM({ Module.poslabPickFile(UTF8ToString($0)); }, accept.c_str());
  };
  aso.take_picked_file = []() -> std::string {
    const char* path = emscripten_run_script_string(
        "(function() { const p = Module.poslabPicked || ''; Module.poslabPicked = ''; return p; "
        "})()");
    return path ? path : "";
  };
  app.state = std::make_unique<AppState>(aso);
  app.state->setup_style(1.0f);
  if (const std::string preset = location_preset(); !preset.empty()) {
    app.shown_preset = preset;
    app.state->open_lab(preset);
  }
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One frame of the app drawn into `target` (0 = the page's canvas) at k times the canvas's
// size (k > 1: a Share picture, AppState::export_picture).
void draw(WebApp& app, int k, unsigned target) {
  AppState& state = *app.state;
  if (state.fonts_dirty()) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    state.rebuild_fonts(1.0f);
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  poslab::app::gfx::use_nearest_font_filter();
  ImGui_ImplGlfw_NewFrame();
  if (target) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover in pictures
  ImGui::GetIO().DisplaySize.x *= static_cast<float>(k);
  ImGui::GetIO().DisplaySize.y *= static_cast<float>(k);
  ImGui::NewFrame();
  state.draw_frame();
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(app.window, &w, &h);
  w *= k;
  h *= k;
  glBindFramebuffer(GL_FRAMEBUFFER, target);
  glViewport(0, 0, w, h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, bg.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  state.deliver_captures(w, h);
}

void update_cjk_font(WebApp& app) {
  AppState& state = *app.state;
  // Chosen: as the interface language, or as a lab's own text language (lessons?lang=zh).
  const auto* p = state.find_panel(state.settings().active_lab);
  const bool chosen =
      state.settings().language == "zh" || (p && p->preset().find("lang=zh") != std::string::npos);
  if (app.cjk == WebApp::Cjk::none && chosen) app.cjk = WebApp::Cjk::fetching;
  if (app.cjk != WebApp::Cjk::fetching) return;
  const Fetch answer = fetch_file(kCjkFontUrl, kCjkFont);
  if (answer == Fetch::ready) {
    app.cjk = WebApp::Cjk::ready;
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    state.rebuild_fonts(1.0f);
    ImGui_ImplOpenGL3_CreateFontsTexture();
  } else if (answer == Fetch::failed) {
    app.cjk = WebApp::Cjk::failed;
    state.report_error("fonts", "the Chinese font could not be loaded (" + fetch_error(kCjkFont) +
                                    "); texts are shown in English where they need it");
  }
}

void frame() {
  WebApp& app = *g_app;
  if (!app.state) {
    if (!EM_ASM_INT({ return Module.poslabFsReady ? 1 : 0; })) return;
    start_app(app);
  }
  AppState& state = *app.state;
  const auto t0 = std::chrono::steady_clock::now();
  fit_canvas(app.window);
  try {
    update_cjk_font(app);
    GImGui->TestEngineHookItems = app.record_items;
    app.items.clear();
    draw(app, 1, 0);
    GImGui->TestEngineHookItems = false;  // a picture's frames are not on the page
    app.shown_items.swap(app.items);
    if (auto req = state.take_picture_request()) {
      int w = 0, h = 0;
      glfwGetFramebufferSize(app.window, &w, &h);
      state.export_picture(*req, w, h, [&](int k, unsigned fbo) { draw(app, k, fbo); });
    }
    state.autosave(now_s());
  } catch (const std::exception& e) {  // the panels catch their own; this is the shell's
    std::fprintf(stderr, "poslab: frame: %s\n", e.what());
  }
  ++app.frames;
  app.frame_ms.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (app.frame_ms.size() > 120) app.frame_ms.pop_front();
  // The address bar follows the active lab's state (replaceState: no history entry, no
  // hashchange event, so this never reopens what it wrote).
  if (auto* p = state.find_panel(state.settings().active_lab)) {
    const std::string preset = p->preset();
    if (preset != app.shown_preset) {
      app.shown_preset = preset;
      EM_ASM({ history.replaceState(null, "", "#" + UTF8ToString($0)); }, preset.c_str());
    }
  }
}

}  // namespace

extern "C" {

// Opens a preset as a link does (untrusted: files it names wait for approval); the page
// calls it when its hash changes.
EMSCRIPTEN_KEEPALIVE void poslab_web_open(const char* preset) {
  if (!g_app || !g_app->state || !preset || !*preset) return;
  g_app->shown_preset = preset;
  g_app->state->open_lab(preset);
}

// {"frames", "lab", "preset", "errors": [...], "frame_ms": [...], "cjk_font", "settings":
// {"dark_theme", "language", "ui_scale", "config_dir", "data_dir"}} as JSON.
EMSCRIPTEN_KEEPALIVE const char* poslab_web_status() {
  if (!g_app || !g_app->state) return "{\"frames\": 0}";
  AppState& state = *g_app->state;
  nlohmann::json j;
  j["frames"] = g_app->frames;
  j["lab"] = state.settings().active_lab;
  auto* p = state.find_panel(state.settings().active_lab);
  j["preset"] = p ? p->preset() : "";
  j["errors"] = state.errors();
  j["frame_ms"] = std::vector<double>(g_app->frame_ms.begin(), g_app->frame_ms.end());
  j["cjk_font"] = state.cjk_font() != nullptr;  // the Chinese font is loaded and merged
  const poslab::app::Settings& s = state.settings();
  j["settings"] = {{"dark_theme", s.dark_theme},
                   {"language", s.language},
                   {"ui_scale", s.ui_scale},
                   {"config_dir", state.config_dir()},
                   {"data_dir", state.data_dir()}};
  g_app->reply = j.dump();
  return g_app->reply.c_str();
}

// The active lab's numbers as poslab-cli prints them for the same state: {"lab", "preset",
// "cli_args": [...], "json": <poslab-cli's JSON> or null, "why_not"}.
EMSCRIPTEN_KEEPALIVE const char* poslab_web_numbers() {
  if (!g_app || !g_app->state) return "{}";
  AppState& state = *g_app->state;
  nlohmann::json j;
  auto* p = state.find_panel(state.settings().active_lab);
  if (!p) return "{}";
  j["lab"] = p->id();
  j["preset"] = p->preset();
  j["cli_args"] = p->cli_args();
  const poslab::app::LabNumbers n = p->numbers();
  j["json"] = n.json.empty() ? nlohmann::json() : nlohmann::json::parse(n.json, nullptr, false);
  j["why_not"] = n.why_not.text;
  g_app->reply = j.dump();
  return g_app->reply.c_str();
}

// Saves settings now (the page calls it when it is hidden or closed; autosave covers the
// rest). Storing them in IndexedDB follows, asynchronously.
EMSCRIPTEN_KEEPALIVE void poslab_web_save() {
  if (g_app && g_app->state) g_app->state->save();
}

// The labelled items of the last frame, [{"label", "window", "x", "y", "w", "h",
// "disabled"}] in CSS pixels; the first call starts recording (the next frame has them).
EMSCRIPTEN_KEEPALIVE const char* poslab_web_items() {
  if (!g_app) return "[]";
  g_app->record_items = true;
  nlohmann::json j = nlohmann::json::array();
  for (const DrawnItem& it : g_app->shown_items)
    j.push_back({{"label", it.label},
                 {"window", it.window},
                 {"x", it.rect.Min.x},
                 {"y", it.rect.Min.y},
                 {"w", it.rect.GetWidth()},
                 {"h", it.rect.GetHeight()},
                 {"disabled", it.disabled}});
  g_app->reply = j.dump();
  return g_app->reply.c_str();
}

}  // extern "C"

// Dear ImGui's test-engine hooks (IMGUI_ENABLE_TEST_ENGINE in the browser build's ImGui,
// cmake/poslab_web.cmake): ItemAdd gives each item's rectangle, ItemInfo the label of the
// one just added, for the items ImGui did not clip. Called only while recording.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, const ImRect& bb, ImGuiID id) {
  g_app->last_item_rect = bb;
  g_app->last_item_id = id;
}
void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label,
                                  ImGuiItemStatusFlags) {
  if (id != g_app->last_item_id || !label || !ctx->CurrentWindow) return;
  ImRect r = g_app->last_item_rect;
  r.ClipWith(ctx->CurrentWindow->ClipRect);
  if (r.GetWidth() <= 0 || r.GetHeight() <= 0) return;
  g_app->items.push_back(
      {label, ctx->CurrentWindow->Name, r, (ctx->CurrentItemFlags & ImGuiItemFlags_Disabled) != 0});
}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) {
  return "";
}

int main() {
  // The data folder the page preloaded (app/web/web_app.cmake), as the desktop app finds it.
  setenv("POSLAB_DATA_DIR", "/poslab", 1);
  if (!glfwInit()) {
    std::fprintf(stderr, "poslab: this browser gave no WebGL 2 context\n");
    return 1;
  }
  static WebApp app;  // lives until the page closes (the main loop never returns)
  g_app = &app;
  mount_user_dirs();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  app.window = glfwCreateWindow(1280, 800, "PosLab", nullptr, nullptr);
  if (!app.window) {
    std::fprintf(stderr, "poslab: could not create a WebGL 2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(app.window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(app.window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  ImGui::GetIO().SetClipboardTextFn = set_clipboard;
  ImGui::GetIO().GetClipboardTextFn = get_clipboard;
  emscripten_set_main_loop(frame, 0, true);  // start_app runs in the first frame that can
  return 0;
}
