// Tooltips that wrap: ImGui::SetTooltip draws one line however long, which runs off the
// screen (worst in Chinese, which has no spaces to break at). These draw the text wrapped at
// about 40 em of the current font (text_wrap.hpp's rules, so Chinese breaks between
// characters); a short text keeps its own width. Use them instead of ImGui::SetTooltip (a
// house rule test forbids it in app/).
#pragma once
#include <imgui.h>

#include <string_view>

namespace poslab::app {

// Where a tooltip's lines wrap, in pixels: 40 em of the current font.
float tooltip_wrap_width();
// A tooltip showing `text` this frame (call it when the item is hovered).
void tooltip_show(std::string_view text);
// printf-style tooltip_show.
void tooltip_showf(const char* fmt, ...) IM_FMTARGS(1);
// Shows `text` while the previous item is hovered (nullptr: nothing).
void tooltip(const char* text);

}  // namespace poslab::app
