// Modal popups without Dear ImGui 1.86's blocking-modal assertion (app/imgui_modal.hpp).
// Upstream's fix (1.87, FindBlockingModal) reads `!Active && !WasActive` where 1.86 reads
// `!WasActive`; marking the modal as shown once it has begun gives 1.86 the same answer.
// WasActive is recomputed from Active by the next NewFrame, so nothing outlives the frame.
#include "app/imgui_modal.hpp"

#include <imgui_internal.h>

#include <algorithm>

namespace poslab::app {

bool begin_popup_modal(const char* name, ImGuiWindowFlags flags) {
  if (!ImGui::BeginPopupModal(name, nullptr, flags)) return false;
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  if (w->Active) w->WasActive = true;
  // Its title bar stays on the screen: a popup dragged above the window (or off a side)
  // could not be grabbed and brought back.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float keep = std::min(w->Size.x, 6.0f * ImGui::GetFontSize());  // of the title bar
  const ImVec2 lo(vp->WorkPos.x - w->Size.x + keep, vp->WorkPos.y);
  const ImVec2 hi(vp->WorkPos.x + vp->WorkSize.x - keep,
                  vp->WorkPos.y + vp->WorkSize.y - w->TitleBarHeight());
  const ImVec2 at(std::clamp(w->Pos.x, lo.x, std::max(lo.x, hi.x)),
                  std::clamp(w->Pos.y, lo.y, std::max(lo.y, hi.y)));
  if (at.x != w->Pos.x || at.y != w->Pos.y) ImGui::SetWindowPos(at);
  return true;
}

bool close_undrawn_modals() {
  ImGuiContext& g = *GImGui;
  if (g.BeginPopupStack.Size != 0) return false;  // only outside every popup
  for (int i = 0; i < g.OpenPopupStack.Size; ++i) {
    const ImGuiWindow* w = g.OpenPopupStack[i].Window;
    if (w && (w->Flags & ImGuiWindowFlags_Modal) && !w->Active) {
      ImGui::ClosePopupToLevel(i, true);  // and every popup opened above it
      return true;
    }
  }
  return false;
}

}  // namespace poslab::app
