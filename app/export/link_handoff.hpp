// A poslab: link opened while PosLab already runs goes to the running window instead of a
// second one. The first interactive instance listens on a per-user socket
// ($XDG_RUNTIME_DIR/poslab-link.sock: the folder only its user can enter; the peer's uid is
// checked too); a second `poslab 'poslab:...'` sends the link there and exits. The running
// app opens it like a pasted preset (a bad preset is a banner); text that is not a poslab:
// link is refused and never reaches the labs.
#pragma once
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace poslab::app {

// The socket's path, or "" when $XDG_RUNTIME_DIR is not set, is not a folder that this user
// owns with mode 700 (then `why` says so, for a note on stderr), or the path is too long for
// a socket. With "" every start opens its own window, as before.
std::string link_socket_path(std::string* why = nullptr);

enum class Handoff {
  none,     // no running instance of this user answered: open a window here
  taken,    // the running instance opens the link
  refused,  // the running instance says it is not a poslab: link
  busy,     // the running instance has too many links waiting (a flood): try later
};
// Sends `link` to the instance listening on `socket_path` (waits at most a few seconds).
// A listener run by another user (SO_PEERCRED) gets nothing and counts as none.
Handoff link_handoff_send(const std::string& socket_path, const std::string& link);

inline constexpr int kLinkClientDeadlineMs = 1000;  // a client sends its line within this
inline constexpr size_t kLinkQueueMax = 16;         // links waiting for the window at most

// The running instance's side: a thread accepting links on the socket.
class LinkListener {
 public:
  // Listens on `socket_path` (a socket left by a crashed instance is replaced; one of a live
  // instance is left alone and this one does not listen). `wake` runs on the listening thread
  // after a link arrived (glfwPostEmptyEvent wakes the event loop).
  LinkListener(std::string socket_path, std::function<void()> wake);
  ~LinkListener();  // stops the thread and removes the socket
  LinkListener(const LinkListener&) = delete;
  LinkListener& operator=(const LinkListener&) = delete;
  bool listening() const { return fd_ >= 0; }
  // Links received since the last call (main thread).
  std::vector<std::string> take();

 private:
  void serve();
  void answer(int client);

  std::string path_;
  std::function<void()> wake_;
  int fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::mutex mutex_;
  std::vector<std::string> links_;
  std::thread thread_;
};

}  // namespace poslab::app
