// Lab colours that stay readable on both themes. Bright hues (yellow, lime, orange) that
// stand out on the dark theme's near-black vanish on the light theme's white; these
// functions keep the hue and darken it there. The theme is read from the current ImGui
// style (the window background), so every drawing site gets it without extra arguments.
#pragma once
#include <imgui.h>

namespace poslab::app {

// True when the current style draws windows on a light background.
bool theme_is_light();
// `c` as is on a dark background; on a light one the same hue darkened until its
// relative luminance is at most 0.18 (about 4.5:1 contrast against white). Alpha kept.
ImU32 theme_colour(ImVec4 c);
ImU32 theme_colour(ImU32 c);

}  // namespace poslab::app
