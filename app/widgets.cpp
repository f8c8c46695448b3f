// Shared ImGui helpers (see widgets.hpp).
#include "app/widgets.hpp"

#include <imgui.h>

namespace poslab::app {

bool slider_double(const char* label, double& v, ParamRange r, const char* fmt, bool log,
                   const char* help) {
  double lo = r.lo, hi = r.hi;
  const bool changed = ImGui::SliderScalar(
      label, ImGuiDataType_Double, &v, &lo, &hi, fmt,  // format: the caller's literal
      ImGuiSliderFlags_AlwaysClamp | (log ? ImGuiSliderFlags_Logarithmic : 0));
  tooltip(help);
  return changed;
}

bool slider_int(const char* label, int& v, ParamRange r, bool log, const char* help) {
  const bool changed =
      ImGui::SliderInt(label, &v, static_cast<int>(r.lo), static_cast<int>(r.hi), "%d",
                       ImGuiSliderFlags_AlwaysClamp | (log ? ImGuiSliderFlags_Logarithmic : 0));
  tooltip(help);
  return changed;
}

bool radio_row(int& v, std::initializer_list<RadioChoice> choices) {
  bool clicked = false;
  int value = 0;
  for (const RadioChoice& c : choices) {
    if (value > 0) ImGui::SameLine();
    clicked |= ImGui::RadioButton(c.label.c_str(), &v, value);
    tooltip(c.tip);
    ++value;
  }
  return clicked;
}

ViewRect last_item_rect() {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  return {a.x, a.y, b.x, b.y};
}

}  // namespace poslab::app
