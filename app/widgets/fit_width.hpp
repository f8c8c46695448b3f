// Widths that fit translated texts: a combo sized for English ("25 fps") clips its Chinese
// ("25 帧/秒"), so combos whose items come from the interface files take the wider of their
// design width and their widest item.
#pragma once
#include <imgui.h>

#include <algorithm>
#include <initializer_list>

namespace poslab::app {

// Width for SetNextItemWidth: at least `min_width`, and wide enough that every item shows in
// full next to the arrow button.
inline float combo_fit_width(std::initializer_list<const char*> items, float min_width) {
  float widest = 0;
  for (const char* s : items) widest = std::max(widest, ImGui::CalcTextSize(s).x);
  const ImGuiStyle& st = ImGui::GetStyle();
  return std::max(min_width, widest + 2 * st.FramePadding.x + ImGui::GetFrameHeight());
}

}  // namespace poslab::app
