// Long runs on the command line (wm train, lm train): Ctrl-C or SIGTERM asks the run to stop
// at its next checkpoint (a second Ctrl-C kills at once), and the command line as run,
// recorded in checkpoints for provenance.
#pragma once
#include <atomic>
#include <string>

namespace poslab::cli {

// While one lives, SIGINT and SIGTERM set flag() instead of ending the process; the previous
// handlers come back when it ends (an exception included). flag() is cleared at its start.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  static std::atomic<bool>& flag();

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

// The command line as run, from /proc/self/cmdline; arguments with spaces in single quotes.
std::string command_line();

}  // namespace poslab::cli
