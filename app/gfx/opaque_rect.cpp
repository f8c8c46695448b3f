#include "app/gfx/opaque_rect.hpp"

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

void add_opaque_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImVec4 colour) {
  // The frame is cleared with WindowBg's colour (app/main.cpp) and the lab's child windows
  // draw no background, so that colour is what lies under the rectangle.
  const ImVec4 under = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const float t = colour.w;
  const ImVec4 shown(colour.x * t + under.x * (1 - t), colour.y * t + under.y * (1 - t),
                     colour.z * t + under.z * (1 - t), 1.0f);
  begin_without_blending(dl);
  dl->AddRectFilled(a, b, ImGui::ColorConvertFloat4ToU32(shown));
  end_without_blending(dl);
}

void begin_without_blending(ImDrawList* dl) {
  dl->AddCallback([](const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }, nullptr);
}

void end_without_blending(ImDrawList* dl) {
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

}  // namespace poslab::app::gfx
