// The desktop app's headless modes (main.cpp runs one of them after opening the window):
// --record (a lab's view as animated WebP), the --export-* files of the Share popup,
// --click-fuzz, --check (every lab's presets and every file a lab needs), and the main
// view's on-screen size that the layout tests read.
#pragma once

#include <string>
#include <vector>

#include "app/start_options.hpp"

struct GLFWwindow;

namespace poslab::app {

class AppState;
class Frontend;

// --record shows the lab moving: a preset that does not say `play` plays (the arena's
// default match otherwise waits for "take the helm" and the video is one still picture).
// The experts fly every ship unless the preset names a helm. A bad preset is returned as it
// is: opening it puts its error on the banner.
std::string playing_preset(const std::string& preset);
// --record: N video frames of the active lab's view into opt.record. Returns the exit code.
int run_recording(Frontend& fe, AppState& state, const StartOptions& opt);
// The headless --export-* outputs follow --record's rule: an existing file is replaced only
// with --overwrite. Checked before any frame runs, so nothing is written when one is refused.
// Returns 0, or 2 with the file named on stderr.
int refuse_existing_exports(const StartOptions& opt);
// The headless --export-* hooks, on the active lab after the frames. Prints what was
// written and how long it took; returns 0, or 2 if an export failed (the reason on stderr).
int run_exports(Frontend& fe, AppState& state, const StartOptions& opt);
// --click-fuzz: opt.click_fuzz random actions on the active lab (see headless_modes.cpp).
// Prints the counts as JSON; an ImGui assertion aborts the process.
int run_click_fuzz(Frontend& fe, AppState& state, const StartOptions& opt);
// The active lab's main view as it was on screen in the last frame (the layout tests).
void print_main_view(GLFWwindow* window, const AppState& state);
// The active lab's layout in the last frame, as lines for the layout tests: a pane that
// scrolls inside a window that scrolls the same way (two scroll bars side by side), and a
// window whose content is cut off with no scroll bar to reach it. Empty when it is sound.
std::vector<std::string> lab_layout_problems();
// Runs every panel with its defaults, its check presets and any extra presets for a few
// frames each and checks its state. Prints one line per failure; returns the count.
int run_checks(Frontend& fe, AppState& state, const std::string& presets_file);

}  // namespace poslab::app
