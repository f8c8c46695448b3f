#include "app/widgets/control_column.hpp"

#include <imgui.h>

#include "app/app_context.hpp"
#include "app/widgets.hpp"

namespace poslab::app {

bool begin_control_column(const AppContext& ctx, const char* id, float width, bool& folded) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float strip_w = ImGui::GetFrameHeight() + 2 * st.WindowPadding.x;
  ImGui::BeginChild(id, ImVec2(folded ? strip_w : width, 0), true);
  if (folded) {
    if (ImGui::ArrowButton("##unfold", ImGuiDir_Right)) folded = false;
    tooltip(ctx.tr("column.unfold"));
    return false;
  }
  if (ImGui::ArrowButton("##fold", ImGuiDir_Left)) folded = true;
  tooltip(ctx.tr("column.fold"));
  ImGui::SameLine();
  ImGui::TextDisabled("%s", ctx.tr("column.controls"));
  return !folded;
}

void end_control_column() {
  ImGui::EndChild();
}

}  // namespace poslab::app
