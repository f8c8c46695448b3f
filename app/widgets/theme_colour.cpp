// Theme-aware lab colours (see theme_colour.hpp).
#include "app/widgets/theme_colour.hpp"

#include <algorithm>
#include <cmath>

namespace poslab::app {
namespace {

// WCAG relative luminance of an sRGB colour.
float luminance(const ImVec4& c) {
  auto lin = [](float v) {
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
  };
  return 0.2126f * lin(c.x) + 0.7152f * lin(c.y) + 0.0722f * lin(c.z);
}

}  // namespace

bool theme_is_light() {
  return luminance(ImGui::GetStyle().Colors[ImGuiCol_WindowBg]) > 0.5f;
}

ImU32 theme_colour(ImVec4 c) {
  constexpr float kMaxLuminance = 0.18f;  // 0.18 + 0.05 against 1.05: about 4.5:1 on white
  if (theme_is_light()) {
    // Scaling sRGB channels by k keeps the hue; luminance falls monotonically with k.
    float lo = 0.0f, hi = 1.0f;
    if (luminance(c) > kMaxLuminance) {
      for (int it = 0; it < 20; ++it) {
        const float k = 0.5f * (lo + hi);
        const ImVec4 d(c.x * k, c.y * k, c.z * k, c.w);
        (luminance(d) > kMaxLuminance ? hi : lo) = k;
      }
      c = ImVec4(c.x * lo, c.y * lo, c.z * lo, c.w);
    }
  }
  return ImGui::ColorConvertFloat4ToU32(c);
}

ImU32 theme_colour(ImU32 c) {
  return theme_colour(ImGui::ColorConvertU32ToFloat4(c));
}

}  // namespace poslab::app
