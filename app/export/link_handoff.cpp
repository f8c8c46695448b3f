// The per-user link socket (see link_handoff.hpp). One line per connection: the client
// writes the link and a newline, the server answers "ok" or "no" and closes.
#include "app/export/link_handoff.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "app/export/export_files.hpp"

namespace poslab::app {
namespace {

constexpr size_t kMaxLink = 64 * 1024;  // a preset link is far shorter; more is garbage
constexpr int kReplyTimeoutMs = 3000;   // a running app answers within a frame or two

bool fill_address(const std::string& path, sockaddr_un& a) {
  std::memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path) return false;
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return true;
}

// True if the process at the other end of `fd` runs as this user.
bool peer_is_us(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == ::getuid();
}

// A connected socket to `path`, or -1 (nobody listens there).
int connect_to(const std::string& path) {
  sockaddr_un a;
  if (!fill_address(path, a)) return -1;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads until a newline, EOF, `max` bytes or `timeout_ms` in all (a client sending a byte
// at a time cannot stretch it); false on timeout or overflow.
bool read_line(int fd, std::string& out, size_t max, int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  while (out.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max) return false;
  }
  if (const auto nl = out.find('\n'); nl != std::string::npos) out.resize(nl);
  return true;
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string link_socket_path(std::string* why) {
  const char* dir = std::getenv("XDG_RUNTIME_DIR");
  if (!dir || *dir != '/') return {};
  // Another user who owns or can enter the folder could listen there in our place, or
  // replace our socket: only a folder of ours that nobody else can enter will do.
  struct stat st {};
  std::string problem;
  if (::stat(dir, &st) != 0)
    problem = std::string("cannot be examined (") + std::strerror(errno) + ")";
  else if (!S_ISDIR(st.st_mode))
    problem = "is not a folder";
  else if (st.st_uid != ::getuid())
    problem = "belongs to uid " + std::to_string(st.st_uid) + ", not to this user";
  else if ((st.st_mode & 077) != 0)
    problem = "can be entered by other users (mode " + std::to_string((st.st_mode >> 6) & 7) +
              std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) +
              ", needs 700)";
  if (!problem.empty()) {
    if (why)
      *why = std::string("$XDG_RUNTIME_DIR ") + dir + " " + problem +
             ": links are not handed to a running window (chmod 700 it, or unset it)";
    return {};
  }
  const std::string path = std::string(dir) + "/poslab-link.sock";
  sockaddr_un a;
  return fill_address(path, a) ? path : std::string();
}

Handoff link_handoff_send(const std::string& socket_path, const std::string& link) {
  const int fd = connect_to(socket_path);
  if (fd < 0) return Handoff::none;
  if (!peer_is_us(fd)) {  // someone else's listener never sees the link
    ::close(fd);
    return Handoff::none;
  }
  write_all(fd, link + "\n");
  std::string reply;
  const bool answered = read_line(fd, reply, 16, kReplyTimeoutMs);
  ::close(fd);
  if (!answered) return Handoff::none;  // a hung instance: open a window here instead
  if (reply == "busy") return Handoff::busy;
  return reply == "ok" ? Handoff::taken : reply == "no" ? Handoff::refused : Handoff::none;
}

LinkListener::LinkListener(std::string socket_path, std::function<void()> wake)
    : path_(std::move(socket_path)), wake_(std::move(wake)) {
  sockaddr_un a;
  if (!fill_address(path_, a)) return;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  const auto bind_it = [&] { return ::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a); };
  if (bind_it() != 0) {
    // A live instance keeps its socket; a crashed one's is stale and replaced.
    if (errno != EADDRINUSE) {
      ::close(fd);
      return;
    }
    if (const int live = connect_to(path_); live >= 0) {
      ::close(live);
      ::close(fd);
      return;
    }
    ::unlink(path_.c_str());
    if (bind_it() != 0) {
      ::close(fd);
      return;
    }
  }
  if (::listen(fd, 8) != 0 || ::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    ::close(fd);
    ::unlink(path_.c_str());
    return;
  }
  fd_ = fd;
  thread_ = std::thread([this] { serve(); });
}

LinkListener::~LinkListener() {
  if (fd_ < 0) return;
  const char stop = 1;
  (void)!::write(stop_pipe_[1], &stop, 1);
  thread_.join();
  ::close(fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  ::unlink(path_.c_str());
}

std::vector<std::string> LinkListener::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  out.swap(links_);
  return out;
}

void LinkListener::serve() {
  for (;;) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p[1].revents) return;
    if (!(p[0].revents & POLLIN)) continue;
    const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void LinkListener::answer(int client) {
  // Only the user's own processes (the folder already keeps others out).
  if (!peer_is_us(client)) return;
  std::string line;
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  // One client at a time, each within the deadline: a slow one delays the next by at most
  // kLinkClientDeadlineMs. Escapes that decode to control characters are refused when the
  // preset is read (core/common/preset.cpp), as for a pasted one.
  if (!read_line(client, line, kMaxLink, kLinkClientDeadlineMs) || !is_preset_uri(line) ||
      std::any_of(line.begin(), line.end(), control)) {
    write_all(client, "no\n");
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (links_.size() >= kLinkQueueMax) {  // a flood: the window opens what it has first
      write_all(client, "busy\n");
      return;
    }
    links_.push_back(line);
  }
  write_all(client, "ok\n");
  if (wake_) wake_();
}

}  // namespace poslab::app
