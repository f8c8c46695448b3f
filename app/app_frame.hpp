// One frame of the app, shared by the desktop's event loop (main.cpp) and the page's main
// loop (web/main.cpp): when to draw (idle when still: only on input, animation or a running
// job) and the ImGui frame itself, drawn into the window or into a picture's target.
#pragma once
#include <functional>

struct GLFWwindow;
struct ImGuiIO;

namespace poslab::app {

class AppState;

// Whether to draw a frame now: the app asks for frames (animation, a running job, a few
// frames to settle after input: AppState::wants_continuous_frames) or input arrived since
// the last frame (`input_seen`; then two more frames let ImGui settle hover and active
// states). False: draw nothing until the next input.
bool frame_wanted(AppState& state, bool input_seen);

// One frame: the fonts rebuilt when asked (at `content_scale`, the monitor's or the page's
// devicePixelRatio), ImGui's frame with the GLFW backend's input (`input` may change it:
// test input, no pointer in pictures), the app drawn and, with `raster`, rendered into
// `target` (0 = the window) at k times the window's size.
void draw_app_frame(AppState& state, GLFWwindow* window, float content_scale, int k,
                    unsigned target, bool raster, const std::function<void(ImGuiIO&)>& input);

}  // namespace poslab::app
