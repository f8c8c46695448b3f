// Wrapped text drawn as ImGui::TextWrapped would (see wrapped_text.hpp): the lines come from
// text_wrap_lines with the current font's advances, then one multi-line text item draws them.
#include "app/widgets/wrapped_text.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "app/widgets/text_wrap.hpp"

namespace poslab::app {

void wrapped_text(std::string_view text, float right) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return;
  // The wrap position TextWrapped uses: the pushed one, or 0 (the window or cell edge).
  float wrap_pos = std::max(window->DC.TextWrapPos, 0.0f);
  if (right > 0) {
    const float region_right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
    wrap_pos = std::min(right, region_right);
  }
  const float wrap_width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos);
  // Like ImGui, measure in the font's own units (advances unscaled, the width divided).
  const ImFont* font = ImGui::GetFont();
  const float scale = ImGui::GetFontSize() / font->FontSize;
  const auto advance = [font](char32_t c) {
    return c <= 0xFFFF ? font->GetCharAdvance(static_cast<ImWchar>(c)) : font->FallbackAdvanceX;
  };
  std::string out;
  out.reserve(text.size() + 8);
  const std::vector<std::string_view> lines = text_wrap_lines(text, wrap_width / scale, advance);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i];
  }
  if (!text.empty() && text.back() == '\n') out += '\n';  // a last empty line counts as in ImGui
  ImGui::TextUnformatted(out.data(), out.data() + out.size());
}

void text_wrapped(const char* fmt, ...) {
  if (ImGui::GetCurrentWindow()->SkipItems) return;
  char small[512];
  va_list args;
  va_start(args, fmt);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, fmt, args);
  va_end(args);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<size_t>(n) < sizeof small) {
    va_end(again);
    wrapped_text(std::string_view(small, static_cast<size_t>(n)));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(big.data(), big.size(), fmt, again);
  va_end(again);
  big.pop_back();
  wrapped_text(big);
}

}  // namespace poslab::app
