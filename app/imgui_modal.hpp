// Modal popups without Dear ImGui 1.86's blocking-modal assertion. In the frame a modal
// appears, 1.86 (Debian 12's) skips it when it looks for the modal that blocks a window
// (it checks only WasActive, false until the next frame), so any window that begins after
// the modal in that frame and outside it (a tooltip under a resting cursor, a combo list)
// fails `blocking_modal != NULL` in ImGui::Begin and aborts the app (ocornut/imgui#4920,
// fixed upstream in 1.87 by also counting a modal that is active this frame).
#pragma once

#include <imgui.h>

namespace poslab::app {

// ImGui::BeginPopupModal. When it returns true in the popup's first frame, the popup counts
// as shown for the rest of that frame, as 1.87 counts it: a window begun after it is placed
// behind it, and the windows under it stop taking the mouse at once (no tooltip or click of
// a lab drawn after the popup reaches the lab in that frame).
bool begin_popup_modal(const char* name, ImGuiWindowFlags flags = 0);

// Call at the end of a frame, after the last Begin: closes every modal popup that is open
// but was not drawn in this frame (its lab's tab was left, the Share popup is skipped while
// a picture is rendered). 1.86 keeps such a modal on its popup stack, and every new window
// would fail the same assertion until it is drawn again. Returns true if one was closed.
bool close_undrawn_modals();

}  // namespace poslab::app
