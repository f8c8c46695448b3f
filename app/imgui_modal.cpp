// Modal popups without Dear ImGui 1.86's blocking-modal assertion (app/imgui_modal.hpp).
// Upstream's fix (1.87, FindBlockingModal) reads `!Active && !WasActive` where 1.86 reads
// `!WasActive`; marking the modal as shown once it has begun gives 1.86 the same answer.
// WasActive is recomputed from Active by the next NewFrame, so nothing outlives the frame.
#include "app/imgui_modal.hpp"

#include <imgui_internal.h>

namespace poslab::app {

bool begin_popup_modal(const char* name, ImGuiWindowFlags flags) {
  if (!ImGui::BeginPopupModal(name, nullptr, flags)) return false;
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  if (w->Active) w->WasActive = true;
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
