// Quit signals through a flag and a self-pipe (see quit_signals.hpp).
#include "app/quit_signals.hpp"

#include <GLFW/glfw3.h>
#include <signal.h>  // sigaction
#include <unistd.h>  // pipe, read, write

#include <cerrno>
#include <csignal>
#include <thread>

namespace poslab::app {
namespace {

volatile std::sig_atomic_t g_quit_signal = 0;
int g_quit_pipe[2] = {-1, -1};

void on_quit_signal(int) {
  g_quit_signal = 1;
  const char byte = 'q';
  [[maybe_unused]] const ssize_t n = write(g_quit_pipe[1], &byte, 1);
}

}  // namespace

void install_quit_signals() {
  if (pipe(g_quit_pipe) != 0) return;  // without the pipe: no handler, signals end the process
  std::thread([] {
    char byte = 0;
    ssize_t n = 0;
    do n = read(g_quit_pipe[0], &byte, 1);
    while (n < 0 && errno == EINTR);
    glfwPostEmptyEvent();
  }).detach();
  struct sigaction sa {};
  sa.sa_handler = on_quit_signal;
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool quit_signal_received() {
  return g_quit_signal != 0;
}

}  // namespace poslab::app
