// PosLab in the browser: the desktop app's AppState, panels and ImGui frame driven by
// emscripten's main loop instead of main.cpp's blocking loop (POSLAB_WEB builds this file
// in place of main.cpp). The page's URL hash is the preset (…/poslab.html#rope?dim=64): it
// opens that lab at start and when it changes, and follows the active lab's state, so the
// address bar is always a link to what is on screen. Settings and lesson progress persist in
// the browser: the user folders (io/files/user_dirs) are IndexedDB-backed (IDBFS), loaded
// before the app starts and stored after each atomic write. Tests read the page through the
// exported functions below (tests/web/). Single-threaded: background jobs run inline.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/app_frame.hpp"
#include "app/app_state.hpp"
#include "app/gfx/gl.hpp"
#include "app/settings.hpp"
#include "app/widgets/background_job.hpp"
#include "core/common/preset.hpp"
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
  ImRect rect;  // visible part, device pixels of the canvas
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
  double longest_ms = 0;        // the longest frame since poslab_web_reset_longest, ms
  std::string shown_preset;     // the preset last written to the address bar
  std::string reply;            // the exported functions' last answer (kept alive for JS)
  std::string clipboard;        // what PosLab copied last (the browser's is write-only here)
  enum class Cjk { none, fetching, ready, failed } cjk = Cjk::none;  // the Chinese font
  float dpr = 1.0f;        // the page's devicePixelRatio: the app's content scale
  bool input_seen = true;  // input (or a fetch, a resize) since the last frame
  bool paused = false;     // the main loop is paused: nothing wanted a frame
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
// same relative path beside the page (web_app.cmake puts the length lab's models there), a
// fortune file (the training text, io's lm_default_text_paths) in fortunes/ beside it.
poslab::app::FileFetch fetch_data_files(const std::vector<std::string>& paths) {
  constexpr std::pair<std::string_view, std::string_view> roots[] = {
      {"/poslab/", ""}, {"/usr/share/games/fortunes/", "fortunes/"}};
  poslab::app::FileFetch f;
  f.files = static_cast<int>(paths.size());
  for (const std::string& p : paths) {
    std::error_code ec;
    Fetch state = Fetch::ready;
    if (!std::filesystem::exists(p, ec)) {
      std::string url;
      for (const auto& [root, beside] : roots)
        if (p.rfind(root, 0) == 0) url = std::string(beside) + p.substr(root.size());
      if (url.empty()) {
        f.error += (f.error.empty() ? "" : "; ") + p + ": not in the page's data folder";
        continue;
      }
      state = fetch_file(url, p);
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

// The lab a preset names ("" for one that names none or does not parse).
std::string preset_lab_of(const std::string& preset) {
  try {
    return poslab::preset_lab(preset);
  } catch (const std::exception&) {
    return "";
  }
}

// The page's hash without '#', percent-decoded ("" when none).
std::string location_preset() {
  const char* s =
      emscripten_run_script_string("decodeURIComponent(window.location.hash.replace(/^#/, ''))");
  return s ? s : "";
}

// The canvas sized to the window at devicePixelRatio (Module.poslabFit in page.js); the
// fonts and style follow the ratio as the desktop's follow the monitor's content scale.
void fit_canvas(WebApp& app) {
  const float dpr = static_cast<float>(EM_ASM_DOUBLE({ return Module.poslabFit(); }));
  if (dpr > 0 && dpr != app.dpr) {
    app.dpr = dpr;
    if (app.state) app.state->request_fonts_rebuild();
  }
}

// A file the Share popup wrote (in the page's memory) handed to the user as a download.
void offer_download(const std::string& path) {
  EM_ASM({ Module.poslabDownload(UTF8ToString($0)); }, path.c_str());
}

// ImGui's copy goes to the browser's clipboard too (navigator.clipboard: the page must be
// focused, as it is right after the click that copied). ImGui's paste (Ctrl+V in a text
// field) reads PosLab's own last copy: a page reads the browser's clipboard only
// asynchronously; the Paste button and menu item do (AppStateOptions::read_clipboard).
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
  aso.read_clipboard = [] { EM_ASM({ Module.poslabReadClipboard(); }); };
  aso.take_clipboard = []() -> std::optional<std::pair<bool, std::string>> {
    const char* answer = emscripten_run_script_string(
        "(function() { const c = Module.poslabClipboard; if (!c) return ''; "
        "Module.poslabClipboard = null; return (c.ok ? '1' : '0') + c.text; })()");
    if (!answer || !*answer) return std::nullopt;
    return std::make_pair(answer[0] == '1', std::string(answer + 1));
  };
  app.state = std::make_unique<AppState>(aso);
  app.state->setup_style(app.dpr);
  if (const std::string preset = location_preset(); !preset.empty()) {
    app.shown_preset = preset;
    app.state->open_lab(preset);
  }
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One frame of the app drawn into `target` (0 = the page's canvas) at k times the canvas's
// size (k > 1: a Share picture, AppState::export_picture): the desktop's frame.
void draw(WebApp& app, int k, unsigned target) {
  poslab::app::draw_app_frame(*app.state, app.window, app.dpr, k, target, true, [&](ImGuiIO& io) {
    if (target) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover in pictures
  });
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
    state.request_fonts_rebuild();  // draw_app_frame rebuilds them
  } else if (answer == Fetch::failed) {
    app.cjk = WebApp::Cjk::failed;
    state.report_error("fonts", "the Chinese font could not be loaded (" + fetch_error(kCjkFont) +
                                    "); texts are shown in English where they need it");
  }
}

void frame() {
  WebApp& app = *g_app;
  fit_canvas(app);
  if (!app.state) {
    if (!EM_ASM_INT({ return Module.poslabFsReady ? 1 : 0; })) return;
    start_app(app);
  }
  AppState& state = *app.state;
  update_cjk_font(app);
  // Idle when still, by the desktop's rule: nothing wants a frame, so the main loop pauses
  // until input or a finished fetch wakes it (poslab_web_wake); autosave runs on a timer.
  if (!poslab::app::frame_wanted(state, std::exchange(app.input_seen, false))) {
    app.paused = true;
    emscripten_pause_main_loop();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
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
  app.longest_ms = std::max(app.longest_ms, app.frame_ms.back());
  // The address bar follows the active lab's state without firing hashchange (so this never
  // reopens what it wrote): another lab is a new history entry (pushState: Back returns to
  // the lab before), a changed setting of the same lab replaces the entry (replaceState: a
  // slider's drag is not a hundred entries).
  if (auto* p = state.find_panel(state.settings().active_lab)) {
    const std::string preset = p->preset();
    if (preset != app.shown_preset) {
      const bool new_lab = !app.shown_preset.empty() && preset_lab_of(app.shown_preset) != p->id();
      app.shown_preset = preset;
      EM_ASM({ history[$1 ? 'pushState' : 'replaceState'](null, "", "#" + UTF8ToString($0)); },
             preset.c_str(), new_lab ? 1 : 0);
    }
  }
}

}  // namespace

extern "C" {

// Opens a preset as a link does (untrusted: files it names wait for approval); the page
// calls it when its hash changes and on Back and Forward (popstate).
EMSCRIPTEN_KEEPALIVE void poslab_web_open(const char* preset) {
  if (!g_app || !g_app->state || !preset || !*preset || g_app->shown_preset == preset) return;
  g_app->shown_preset = preset;
  g_app->state->open_lab(preset);
}

// {"frames", "lab", "preset", "errors": [...], "frame_ms": [...], "longest_frame_ms",
// "jobs" (a job has steps left), "jobs_progress" ([[done, total], ...]), "cjk_font", "canvas",
// "dpr", "font_px", "line_px", "paused", "settings":
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
  j["longest_frame_ms"] = g_app->longest_ms;
  j["jobs"] = poslab::app::jobs_pending();            // a job's steps run in the frames
  j["jobs_progress"] = poslab::app::jobs_progress();  // [[done, total], ...]
  j["cjk_font"] = state.cjk_font() != nullptr;        // the Chinese font is loaded and merged
  // The canvas (device pixels), the page's devicePixelRatio, the font's size in device
  // pixels and a text line's height in CSS pixels; paused: idle, drawing nothing.
  j["canvas"] = {EM_ASM_INT({ return Module.canvas.width; }),
                 EM_ASM_INT({ return Module.canvas.height; })};
  j["dpr"] = g_app->dpr;
  j["font_px"] = GImGui ? ImGui::GetFontSize() : 0.0f;
  j["line_px"] = GImGui ? ImGui::GetTextLineHeightWithSpacing() / g_app->dpr : 0.0f;
  j["paused"] = g_app->paused;
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

// Input, a resize, a finished fetch or a picked file (page.js): the next frame draws, and
// a paused main loop runs again.
// Starts a new measure of the longest frame (status's longest_frame_ms).
EMSCRIPTEN_KEEPALIVE void poslab_web_reset_longest() {
  if (g_app) g_app->longest_ms = 0;
}

EMSCRIPTEN_KEEPALIVE void poslab_web_wake() {
  if (!g_app) return;
  g_app->input_seen = true;
  if (g_app->paused) {
    g_app->paused = false;
    emscripten_resume_main_loop();
  }
}

// Frames asked for by a test (the page idles when still): n frames are drawn.
EMSCRIPTEN_KEEPALIVE void poslab_web_request_frames(int n) {
  if (!g_app || !g_app->state) return;
  g_app->state->request_frames(n);
  poslab_web_wake();
}

// The wheel in notches (page.js normalises the browser's deltas; positive = up / left, as
// GLFW's desktop backends give it). A notch scrolls three text lines: ImGui scrolls a
// window by five font sizes per wheel unit.
EMSCRIPTEN_KEEPALIVE void poslab_web_wheel(double notches_x, double notches_y) {
  if (!g_app || !g_app->state || !GImGui) return;
  ImGuiIO& io = ImGui::GetIO();
  const float font = ImGui::GetFontSize();
  const float per_notch =
      font > 0 ? 3.0f * ImGui::GetTextLineHeightWithSpacing() / (5.0f * font) : 0.6f;
  io.MouseWheelH += static_cast<float>(notches_x);
  io.MouseWheel += static_cast<float>(notches_y) * per_notch;
}

// The page's timer (page.js, every 2 s, as the desktop's event loop wakes): autosave runs
// while the main loop idles.
EMSCRIPTEN_KEEPALIVE void poslab_web_tick() {
  if (g_app && g_app->state) g_app->state->autosave(now_s());
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
  const float px = 1.0f / g_app->dpr;  // ImGui draws in device pixels
  for (const DrawnItem& it : g_app->shown_items)
    j.push_back({{"label", it.label},
                 {"window", it.window},
                 {"x", it.rect.Min.x * px},
                 {"y", it.rect.Min.y * px},
                 {"w", it.rect.GetWidth() * px},
                 {"h", it.rect.GetHeight() * px},
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
  // No WebGL 2: the page says so where the app would be (and the console too).
  const auto no_webgl2 = [] {
    const char* why =
        "PosLab needs WebGL 2, and this browser gave the page none (turned off, or an old "
        "browser or graphics driver). Try a current Firefox, Chrome, Edge or Safari with "
        "hardware acceleration on, or the desktop app.";
    std::fprintf(stderr, "poslab: %s\n", why);
    EM_ASM({ Module.poslabFatal(UTF8ToString($0)); }, why);
    return 1;
  };
  if (!glfwInit()) return no_webgl2();
  static WebApp app;  // lives until the page closes (the main loop never returns)
  g_app = &app;
  mount_user_dirs();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  app.window = glfwCreateWindow(1280, 800, "PosLab", nullptr, nullptr);
  if (!app.window) return no_webgl2();
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
