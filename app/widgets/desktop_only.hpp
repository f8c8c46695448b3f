// Controls the browser build cannot offer (datasets: no HDF5 for WebAssembly and no paths on
// the user's disk; recording: no WebP encoder) are replaced there by one line saying so and
// why, instead of a path field, Browse... and buttons that fail when used.
#pragma once
#include <imgui.h>

#include "app/app_context.hpp"
#include "app/widgets/wrapped_text.hpp"

namespace poslab::app {

// In the browser: draws the line `why_key` (desktop_only.*) and returns true (draw nothing of
// the control then). On the desktop: false, draws nothing.
inline bool desktop_only(AppContext& ctx, const char* why_key) {
#ifdef __EMSCRIPTEN__
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped("%s", ctx.tr(why_key));
  ImGui::PopStyleColor();
  return true;
#else
  (void)ctx;
  (void)why_key;
  return false;
#endif
}

}  // namespace poslab::app
