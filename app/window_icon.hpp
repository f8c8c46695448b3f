// The window's icon (taskbar, Alt+Tab, the window list): PosLab's icon at several sizes from
// the data folder (assets/icons/poslab-<N>.png, drawn from packaging/poslab.svg by
// scripts/make_icons.py). Desktop only; the browser's page has its own favicon.
#pragma once

struct GLFWwindow;

namespace poslab::app {

// Sets the icons that exist; none found leaves the window manager's default (not an error).
void set_window_icon(GLFWwindow* window);

}  // namespace poslab::app
