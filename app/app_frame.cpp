// One frame of the app for both builds (app_frame.hpp): the idle rule and the ImGui frame.
#include "app/app_frame.hpp"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/app_state.hpp"
#include "app/gfx/font_texture.hpp"
#include "app/gfx/gl.hpp"
#include "app/widgets/background_job.hpp"

namespace poslab::app {

// The part of a frame the browser's jobs may use: a step starts only if it fits (pump_jobs),
// so a frame stays near this plus the drawing, under the 250 ms a frame may take, while a
// training run gets most of the page's time (at 25 ms the page trained at a quarter of
// native speed, the rest of each frame drawing).
constexpr double kJobSliceSeconds = 0.1;

bool frame_wanted(AppState& state, bool input_seen) {
  if (jobs_pending()) return true;  // the browser's jobs step in the frames
  if (state.wants_continuous_frames()) return true;
  if (!input_seen) return false;
  state.request_frames(2);
  return true;
}

void draw_app_frame(AppState& state, GLFWwindow* window, float content_scale, int k,
                    unsigned target, bool raster, const std::function<void(ImGuiIO&)>& input) {
  if (state.fonts_dirty()) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    state.rebuild_fonts(content_scale);
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  gfx::use_nearest_font_filter();  // after NewFrame, which makes the texture
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  if (input) input(io);
  io.DisplaySize.x *= static_cast<float>(k);
  io.DisplaySize.y *= static_cast<float>(k);
  ImGui::NewFrame();
  if (k == 1) pump_jobs(kJobSliceSeconds);  // the browser's jobs: a slice of each frame
  state.draw_frame();
  ImGui::Render();
  if (!raster) return;
  int w = 0, h = 0;
  glfwGetFramebufferSize(window, &w, &h);
  w *= k;
  h *= k;
  glBindFramebuffer(GL_FRAMEBUFFER, target);
  glViewport(0, 0, w, h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];  // the host window draws none
  glClearColor(bg.x, bg.y, bg.z, bg.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  state.deliver_captures(w, h);  // recordings read the back buffer before the swap
}

}  // namespace poslab::app
