// The link socket's guards (issue 29): the runtime folder must be ours with mode 700, a
// listener of another user never sees a link, a slow client cannot hold the listener, and
// links waiting for the window are bounded. Runs LinkListener and link_handoff_send over a
// real socket; no window.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "app/export/link_handoff.hpp"
#include "tests/app/fresh_dir.hpp"

namespace poslab::app {
// The one function of app/export/export_files.cpp the listener uses (that file needs GL).
bool is_preset_uri(const std::string& text) {
  return text.rfind("poslab:", 0) == 0;
}
}  // namespace poslab::app

using namespace poslab::app;
namespace fs = std::filesystem;

namespace {

// A client that connects and sends `text` one byte every `gap_ms`, never a newline.
void dribble(const std::string& path, const std::string& text, int gap_ms,
             std::atomic<bool>& done) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0)
    for (char c : text) {
      if (::send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    }
  ::close(fd);
  done = true;
}

struct RuntimeDir {
  std::string saved;
  bool had = false;
  explicit RuntimeDir(const fs::path& dir) {
    if (const char* v = std::getenv("XDG_RUNTIME_DIR")) {
      saved = v;
      had = true;
    }
    ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
  }
  ~RuntimeDir() {
    if (had)
      ::setenv("XDG_RUNTIME_DIR", saved.c_str(), 1);
    else
      ::unsetenv("XDG_RUNTIME_DIR");
  }
};

}  // namespace

TEST_CASE("the link socket lives only in a runtime folder of ours that nobody else enters") {
  const fs::path d = poslab::test::fresh_dir("link_test", "runtime");
  RuntimeDir env(d);
  ::chmod(d.c_str(), 0700);
  std::string why;
  CHECK(link_socket_path(&why) == (d / "poslab-link.sock").string());
  CHECK(why.empty());
  ::chmod(d.c_str(), 0755);
  CHECK(link_socket_path(&why).empty());
  CHECK_THAT(why,
             Catch::Contains(d.string()) && Catch::Contains("755") && Catch::Contains("needs 700"));
  if (::getuid() == 0) {  // another owner: only root can make one here
    ::chmod(d.c_str(), 0700);
    REQUIRE(::chown(d.c_str(), 65534, 65534) == 0);
    why.clear();
    CHECK(link_socket_path(&why).empty());
    CHECK_THAT(why, Catch::Contains("uid 65534"));
  }
  fs::remove_all(d);
}

TEST_CASE("a slow client cannot hold the listener, and waiting links are bounded") {
  const fs::path d = poslab::test::fresh_dir("link_test", "listener");
  ::chmod(d.c_str(), 0700);
  const std::string path = (d / "poslab-link.sock").string();
  std::atomic<int> wakes{0};
  LinkListener listener(path, [&] { ++wakes; });
  REQUIRE(listener.listening());

  SECTION("a client sending a byte at a time is cut off at the deadline") {
    // 9 s of dribbling: before the deadline, the listener read it until the client stopped
    // (each byte restarted a 3 s wait), and the next link's sender gave up after 3 s.
    std::atomic<bool> done{false};
    std::thread slow(dribble, path, "poslab:rope?dim=" + std::string(80, '8'), 100, std::ref(done));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(link_handoff_send(path, "poslab:rope?dim=32") == Handoff::taken);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    WARN("link taken " << s << " s after a dribbling client connected");
    slow.join();
    const auto links = listener.take();
    REQUIRE(links.size() == 1);
    CHECK(links[0] == "poslab:rope?dim=32");
  }

  SECTION("a flood: the first kLinkQueueMax links wait, the rest are answered busy") {
    int taken = 0, busy = 0;
    for (size_t i = 0; i < kLinkQueueMax + 8; ++i) {
      const Handoff h = link_handoff_send(path, "poslab:rope?dim=" + std::to_string(2 * i + 2));
      taken += h == Handoff::taken;
      busy += h == Handoff::busy;
    }
    CHECK(taken == static_cast<int>(kLinkQueueMax));
    CHECK(busy == 8);
    CHECK(listener.take().size() == kLinkQueueMax);
    CHECK(link_handoff_send(path, "poslab:rope?dim=8") == Handoff::taken);  // room again
  }

  SECTION("text that is not a link, or holds control characters, is refused") {
    CHECK(link_handoff_send(path, "hello") == Handoff::refused);
    CHECK(link_handoff_send(path, "poslab:rope?dim=8\x1b[2J") == Handoff::refused);
    CHECK(listener.take().empty());
  }
  fs::remove_all(d);
}

TEST_CASE("a listener run by another user never sees the link") {
  if (::getuid() != 0) {
    WARN("skipped: needs root to run a listener as another user");
    return;
  }
  const fs::path d = poslab::test::fresh_dir("link_test", "foreign");
  ::chmod(d.c_str(), 0700);
  const std::string path = (d / "poslab-link.sock").string();
  int report[2];
  REQUIRE(::pipe(report) == 0);
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Bound as root (the folder is root's), listening as nobody: SO_PEERCRED reports the
    // credentials of listen().
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || ::setgid(65534) != 0 ||
        ::setuid(65534) != 0 || ::listen(fd, 4) != 0)
      ::_exit(3);
    (void)!::write(ready[1], "r", 1);
    const int c = ::accept(fd, nullptr, nullptr);
    char buf[256];
    ssize_t got = 0, n = 0;
    timeval tv{2, 0};
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while ((n = ::read(c, buf, sizeof buf)) > 0) got += n;
    (void)!::write(report[1], &got, sizeof got);
    ::_exit(0);
  }
  char r = 0;
  REQUIRE(::read(ready[0], &r, 1) == 1);
  CHECK(link_handoff_send(path, "poslab:rope?dim=32") == Handoff::none);
  ssize_t got = -1;
  REQUIRE(::read(report[0], &got, sizeof got) == sizeof got);
  CHECK(got == 0);  // not one byte of the link reached it
  int status = 0;
  ::waitpid(child, &status, 0);
  for (int fd : {report[0], report[1], ready[0], ready[1]}) ::close(fd);
  fs::remove_all(d);
}
