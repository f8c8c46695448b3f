// SIGTERM (a logout, `kill`), SIGINT and SIGHUP as a quit, not a crash: the interactive frame
// loop sees quit_signal_received() and ends as the close button does (settings saved, start
// marker and link socket removed), so the next start does not say the last one crashed.
#pragma once

namespace poslab::app {

// Installs the handlers (once, before the frame loop). The handler only sets a flag and
// writes a byte to a pipe (both async-signal-safe); a thread reading the pipe wakes the
// event loop with glfwPostEmptyEvent, which may be called from any thread but not from a
// signal handler. A second signal ends the process as before (SA_RESETHAND).
void install_quit_signals();
// True once one of those signals arrived.
bool quit_signal_received();

}  // namespace poslab::app
