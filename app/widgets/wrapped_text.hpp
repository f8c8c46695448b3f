// Wrapped text for every panel: ImGui::TextWrapped's look (one text item, the same line
// spacing, the same wrap width and breaks for Latin text), but Chinese breaks between
// characters instead of overflowing or jumping whole runs to the next line (text_wrap.hpp has
// the rules). Use these instead of ImGui::TextWrapped.
#pragma once
#include <imgui.h>

#include <string>
#include <string_view>

namespace poslab::app {

// Plain text wrapped at window-local x `right` (0 = the pushed text wrap position, else the
// right edge of the window or table cell), from the cursor (after SameLine too: later lines
// start at the same x).
void wrapped_text(std::string_view text, float right = 0);

// printf-style drop-in for ImGui::TextWrapped.
void text_wrapped(const char* fmt, ...) IM_FMTARGS(1);

}  // namespace poslab::app
