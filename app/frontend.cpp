// The desktop window's frame driver (frontend.hpp): GLFW's callbacks, waiting for work,
// drawing, presenting and capturing frames.
#include "app/frontend.hpp"

#include <imgui.h>

#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "app/app_frame.hpp"
#include "app/app_state.hpp"
#include "app/capture.hpp"
#include "app/click_fuzz.hpp"
#include "app/gfx/gl.hpp"

namespace poslab::app {

namespace {

// Set by GLFW callbacks (installed before ImGui's, which chain to them): some input or
// window event arrived since the flag was cleared.
bool g_event_seen = false;
void note_event(GLFWwindow*) {
  g_event_seen = true;
}

}  // namespace

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "poslab: GLFW error %d: %s\n", code, text);
}

void install_event_callbacks(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow* x, double, double) { note_event(x); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow* x, int, int, int) { note_event(x); });
  glfwSetScrollCallback(w, [](GLFWwindow* x, double, double) { note_event(x); });
  glfwSetKeyCallback(w, [](GLFWwindow* x, int key, int, int action, int mods) {
    note_event(x);
    // Ctrl+Q quits at once, without waiting for a (possibly slow) frame to see it.
    if (key == GLFW_KEY_Q && action == GLFW_PRESS && (mods & GLFW_MOD_CONTROL))
      glfwSetWindowShouldClose(x, GLFW_TRUE);
  });
  glfwSetCharCallback(w, [](GLFWwindow* x, unsigned) { note_event(x); });
  glfwSetCursorEnterCallback(w, [](GLFWwindow* x, int) { note_event(x); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow* x, int) { note_event(x); });
  glfwSetWindowSizeCallback(w, [](GLFWwindow* x, int, int) { note_event(x); });
  glfwSetFramebufferSizeCallback(w, [](GLFWwindow* x, int, int) { note_event(x); });
  glfwSetWindowRefreshCallback(w, note_event);
  glfwSetWindowCloseCallback(w, note_event);
  glfwSetWindowContentScaleCallback(w, [](GLFWwindow* x, float, float) { note_event(x); });
}

bool Frontend::wait_for_work(double timeout_s) {
  if (frame_wanted(state_, false)) {
    g_event_seen = false;
    glfwPollEvents();
    // Input that arrives while requested frames run settles as well: two frames after the
    // one that sees it (tests wait for those on the POSLAB_WIDGET_RECTS hook).
    if (g_event_seen) state_.request_frames(2);
    return true;
  }
  g_event_seen = false;
  glfwWaitEventsTimeout(timeout_s);
  return frame_wanted(state_, g_event_seen);
}

double Frontend::frame(int k, unsigned target) {
  if (headless_) glfwPollEvents();  // interactive mode polled or waited in wait_for_work
  const auto t0 = std::chrono::steady_clock::now();
  // --click-fuzz: the frame's logic is what can fail; 15 of 16 frames skip the raster work.
  const bool raster = !(fuzz_ && !target && ++fuzz_frames_ % 16 != 0);
  draw_app_frame(state_, window_, content_scale(), k, target, raster, [&](ImGuiIO& io) {
    // Captures and checks: no pointer over the window, so no
    // hover state or tooltip depends on where the virtual
    // display left its cursor.
    if (fuzz_ && !target)
      fuzz_->feed(io);
    else if (park_mouse_ || target)
      io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  });
  if (!raster) return 0.0;
  glFinish();  // so the measured time includes the GPU (software) rendering
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Counted after the clock stops: the measurement is not part of the frame it measures.
  if (count_fill_) last_fill_ = poslab::app::count_fill(*ImGui::GetDrawData(), list_fill_);
  if (ImGui::GetIO().WantSaveIniSettings) ImGui::GetIO().WantSaveIniSettings = false;
  return ms;
}

void Frontend::count_fill(bool on) {
  count_fill_ = on;
  list_fill_ = on && std::getenv("POSLAB_FILL_LISTS");
}

void Frontend::present() {
  glfwSwapBuffers(window_);
  // Test hook: with POSLAB_READY_FILE=<path>, that file is created once the first frames
  // are on screen, so GUI tests click when the layout exists instead of after a guess.
  if (++frames_presented_ == 3)
    if (const char* ready = std::getenv("POSLAB_READY_FILE")) std::ofstream(ready) << "ready\n";
}

std::string Frontend::export_picture(const PictureRequest& req) {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return state_.export_picture(req, w, h, [&](int k, unsigned fbo) { frame(k, fbo); });
}

void Frontend::screenshot(const std::string& path) {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  write_screenshot(path, w, h);
}

float Frontend::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return x;
}

}  // namespace poslab::app
