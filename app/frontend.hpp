// The desktop window's frame driver (main.cpp): waits for input or a wanted frame, draws
// one frame (or a picture at k times the window's size), presents it, takes screenshots,
// and counts the pixels each frame fills (--frame-times). Also GLFW's error and event
// callbacks, which tell the interactive loop that something happened.
#pragma once

#include <string>

#include "app/gfx/fill_count.hpp"

struct GLFWwindow;

namespace poslab::app {

class AppState;
class ClickFuzz;
struct PictureRequest;

void glfw_error(int code, const char* text);
// Installed before ImGui's callbacks, which chain to them: each notes that an event arrived.
void install_event_callbacks(GLFWwindow* w);

class Frontend {
 public:
  Frontend(GLFWwindow* w, AppState& s, bool headless, bool park_mouse)
      : window_(w), state_(s), headless_(headless), park_mouse_(park_mouse) {}
  // --click-fuzz: its input replaces the pointer and keys in every frame but a capture's.
  void set_fuzz(ClickFuzz* f) { fuzz_ = f; }

  // Interactive mode: sleeps until input arrives or a frame is wanted (animation, a job
  // running, settling after input). Returns false if it woke without reason to draw (the
  // timeout lets autosave run), so an idle app draws nothing at all.
  bool wait_for_work(double timeout_s);

  // One frame: UI and render (into `target` at `k` times the window's size, for pictures).
  // Returns the frame's CPU time in ms.
  double frame(int k = 1, unsigned target = 0);
  // --frame-times: count the pixels each frame's triangles cover (fill_count.hpp); with
  // POSLAB_FILL_LISTS set, per draw list too (printed for the last frame).
  void count_fill(bool on);
  const FillCount& last_fill() const { return last_fill_; }
  // Swaps buffers. Test hook: with POSLAB_READY_FILE=<path>, that file is created once the
  // first frames are on screen, so GUI tests click when the layout exists instead of after
  // a guess.
  void present();

  // The active lab's main view at k times the screen resolution, with its caption, as PNG
  // (AppState::export_picture, drawn with this frontend's frames). Returns "" or why not.
  std::string export_picture(const PictureRequest& req);
  void screenshot(const std::string& path);
  float content_scale() const;

 private:
  GLFWwindow* window_;
  AppState& state_;
  bool headless_;
  bool park_mouse_;
  bool count_fill_ = false, list_fill_ = false;
  FillCount last_fill_;
  long frames_presented_ = 0;
  ClickFuzz* fuzz_ = nullptr;
  long fuzz_frames_ = 0;
};

}  // namespace poslab::app
