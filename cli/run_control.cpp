// Stop requests and the command line of long runs (run_control.hpp).
#include "cli/run_control.hpp"

#include <csignal>
#include <fstream>
#include <sstream>

namespace poslab::cli {

namespace {
extern "C" void run_control_on_signal(int) {
  StopOnSignal::flag().store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}
}  // namespace

std::atomic<bool>& StopOnSignal::flag() {
  static std::atomic<bool> f{false};
  return f;
}

StopOnSignal::StopOnSignal() {
  flag().store(false);
  old_int_ = std::signal(SIGINT, run_control_on_signal);
  old_term_ = std::signal(SIGTERM, run_control_on_signal);
}

StopOnSignal::~StopOnSignal() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string out, arg;
  for (char c : bytes.str()) {
    if (c == '\0') {
      out +=
          (out.empty() ? "" : " ") + (arg.find(' ') == std::string::npos ? arg : "'" + arg + "'");
      arg.clear();
    } else {
      arg += c;
    }
  }
  return out;
}

}  // namespace poslab::cli
