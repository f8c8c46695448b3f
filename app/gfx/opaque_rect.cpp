#include "app/gfx/opaque_rect.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

namespace {

struct OpaqueFill {
  ImVec2 a, b;
  ImVec4 colour;  // opaque
};

// The rectangles of the frame being built: a draw list's callback holds only a pointer, and
// ImGui renders the lists before the next frame starts. A deque keeps the addresses stable.
OpaqueFill* keep_for_this_frame(const OpaqueFill& f) {
  static std::deque<OpaqueFill> fills;
  static int frame = -1;
  if (frame != ImGui::GetFrameCount()) {
    fills.clear();
    frame = ImGui::GetFrameCount();
  }
  fills.push_back(f);
  return &fills.back();
}

// Fills the rectangle, cut to the command's clip rectangle, with a scissored glClear.
void clear_rect(const ImDrawList*, const ImDrawCmd* cmd) {
  const OpaqueFill& f = *static_cast<const OpaqueFill*>(cmd->UserCallbackData);
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd) return;
  const ImVec2 pos = dd->DisplayPos, fs = dd->FramebufferScale;
  const ImVec4 c = cmd->ClipRect;
  // The pixels whose centres lie inside, as the rasteriser would cover them.
  auto px = [](float v) { return static_cast<GLint>(std::ceil(v - 0.5f)); };
  const GLint x0 = px((std::max(f.a.x, c.x) - pos.x) * fs.x);
  const GLint x1 = px((std::min(f.b.x, c.z) - pos.x) * fs.x);
  const GLint y0 = px((std::max(f.a.y, c.y) - pos.y) * fs.y);
  const GLint y1 = px((std::min(f.b.y, c.w) - pos.y) * fs.y);
  if (x1 <= x0 || y1 <= y0) return;
  const GLint fb_h = static_cast<GLint>(std::lround(dd->DisplaySize.y * fs.y));
  glEnable(GL_SCISSOR_TEST);  // ImGui sets its own scissor again before its next draw
  glScissor(x0, fb_h - y1, x1 - x0, y1 - y0);
  glClearColor(f.colour.x, f.colour.y, f.colour.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

}  // namespace

void add_opaque_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImVec4 colour) {
  // The frame is cleared with WindowBg's colour (app/main.cpp) and the lab's child windows
  // draw no background, so that colour is what lies under the rectangle.
  const ImVec4 under = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const float t = colour.w;
  const ImVec4 shown(colour.x * t + under.x * (1 - t), colour.y * t + under.y * (1 - t),
                     colour.z * t + under.z * (1 - t), 1.0f);
  dl->AddCallback(clear_rect, keep_for_this_frame({a, b, shown}));
}

void begin_without_blending(ImDrawList* dl) {
  dl->AddCallback([](const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }, nullptr);
}

void end_without_blending(ImDrawList* dl) {
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

}  // namespace poslab::app::gfx
