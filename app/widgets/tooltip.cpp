// Wrapped tooltips (see tooltip.hpp): one tooltip window, the text drawn by wrapped_text at a
// pushed wrap position 40 em right of where the text starts.
#include "app/widgets/tooltip.hpp"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "app/widgets/wrapped_text.hpp"

namespace poslab::app {

float tooltip_wrap_width() {
  return 40.0f * ImGui::GetFontSize();
}

void tooltip_show(std::string_view text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + tooltip_wrap_width());
  wrapped_text(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void tooltip_showf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, again);
  va_end(again);
  tooltip_show(text);
}

void tooltip(const char* text) {
  if (text && ImGui::IsItemHovered()) tooltip_show(text);
}

}  // namespace poslab::app
