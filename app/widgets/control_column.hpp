// The foldable control column every lab draws at its left: a bordered child window of the
// given width with a fold arrow at its top. Folded, it shrinks to a strip holding only the
// unfold arrow, so the lab's main view gets the room (small windows, UI scale 2).
//   if (begin_control_column(ctx, "##rope_controls", 380 * scale, ui.controls_folded)) {
//     ... the controls ...
//   }
//   end_control_column();           // always, like ImGui::EndChild
//   ImGui::SameLine();              // then the main view
#pragma once

namespace poslab::app {

class AppContext;

// Returns true when the column is unfolded (draw the controls). `folded` is the panel's
// state, flipped by the arrow. Texts: shell.toml [column] in the user's language.
bool begin_control_column(const AppContext& ctx, const char* id, float width, bool& folded);
void end_control_column();

}  // namespace poslab::app
