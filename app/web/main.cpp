// PosLab in the browser: the desktop app's AppState, panels and ImGui frame driven by
// emscripten's main loop instead of main.cpp's blocking loop (POSLAB_WEB builds this file
// in place of main.cpp). The page's URL hash is the preset (…/poslab.html#rope?dim=64): it
// opens that lab at start and when it changes, and follows the active lab's state, so the
// address bar is always a link to what is on screen. Tests read the page through the three
// exported functions below (tests/web/). Single-threaded: background jobs run inline.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/app_state.hpp"
#include "app/gfx/font_texture.hpp"
#include "app/gfx/gl.hpp"
#include "io/data/data_dir.hpp"

namespace {

using poslab::app::AppState;

// What lives between frames. One instance, owned by main() for the page's life; emscripten
// calls the frame and the exported functions without a user pointer, hence the global.
struct WebApp {
  GLFWwindow* window = nullptr;
  std::unique_ptr<AppState> state;
  long frames = 0;
  std::deque<double> frame_ms;  // CPU time of the last frames (UI + GL calls), ms
  std::string shown_preset;     // the preset last written to the address bar
  std::string reply;            // the exported functions' last answer (kept alive for JS)
};
WebApp* g_app = nullptr;

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

void frame() {
  WebApp& app = *g_app;
  AppState& state = *app.state;
  const auto t0 = std::chrono::steady_clock::now();
  fit_canvas(app.window);
  try {
    if (state.fonts_dirty()) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      state.rebuild_fonts(1.0f);
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    poslab::app::gfx::use_nearest_font_filter();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    state.draw_frame();
    ImGui::Render();
    int w = 0, h = 0;
    glfwGetFramebufferSize(app.window, &w, &h);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, w, h);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, bg.w);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    state.deliver_captures(w, h);
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
  if (!g_app || !preset || !*preset) return;
  g_app->shown_preset = preset;
  g_app->state->open_lab(preset);
}

// {"frames", "lab", "preset", "errors": [...], "frame_ms": [...]} as JSON.
EMSCRIPTEN_KEEPALIVE const char* poslab_web_status() {
  if (!g_app) return "{}";
  AppState& state = *g_app->state;
  nlohmann::json j;
  j["frames"] = g_app->frames;
  j["lab"] = state.settings().active_lab;
  auto* p = state.find_panel(state.settings().active_lab);
  j["preset"] = p ? p->preset() : "";
  j["errors"] = state.errors();
  j["frame_ms"] = std::vector<double>(g_app->frame_ms.begin(), g_app->frame_ms.end());
  g_app->reply = j.dump();
  return g_app->reply.c_str();
}

// The active lab's numbers as poslab-cli prints them for the same state: {"lab", "preset",
// "cli_args": [...], "json": <poslab-cli's JSON> or null, "why_not"}.
EMSCRIPTEN_KEEPALIVE const char* poslab_web_numbers() {
  if (!g_app) return "{}";
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

}  // extern "C"

int main() {
  // The data folder the page preloaded (app/web/web_app.cmake), as the desktop app finds it.
  setenv("POSLAB_DATA_DIR", "/poslab", 1);
  if (!glfwInit()) {
    std::fprintf(stderr, "poslab: this browser gave no WebGL 2 context\n");
    return 1;
  }
  static WebApp app;  // lives until the page closes (the main loop never returns)
  g_app = &app;
  poslab::app::AppStateOptions aso;
  aso.use_settings = false;  // settings in the browser (IDBFS) are not kept yet
  aso.lessons_dir = poslab::io::lessons_dir();
  app.state = std::make_unique<AppState>(aso);
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
  app.state->setup_style(1.0f);
  if (const std::string preset = location_preset(); !preset.empty())
    poslab_web_open(preset.c_str());
  emscripten_set_main_loop(frame, 0, true);
  return 0;
}
