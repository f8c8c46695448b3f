// fork + pipe helper for untrusted file reads (isolated.hpp). The child answers with one
// tag byte and a payload; anything else (no tag, a signal, a timeout) counts as a crash.
#include "io/dataset/isolated.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"

namespace poslab::io {
namespace {

void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, data, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return;  // the parent went away; nothing to report to
    }
    data += k;
    n -= static_cast<size_t>(k);
  }
}

[[noreturn]] void child_main(int fd, const std::function<std::string()>& work,
                             const std::string& path) {
  // No core files from a library crash on a corrupt file.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  // Die plainly on a crash: handlers inherited from the caller (a test framework's, say)
  // must not run in this copy of it. Nothing of ours goes to stdout from here.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
  std::string answer;
  try {
    answer = "O" + work();
  } catch (const FileError& e) {
    // FileError's text starts with "<path>: "; send only the reason so it is not doubled.
    std::string why = e.what();
    const std::string prefix = e.path() + ": ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    answer = "F" + e.path() + '\0' + why;
  } catch (const InputError& e) {
    answer = std::string("I") + e.what();
  } catch (const std::bad_alloc&) {
    answer = "F" + path + '\0' + "needs more memory than this machine has (corrupt sizes?)";
  } catch (const std::exception& e) {
    answer = "F" + path + '\0' + "cannot be read (" + e.what() + ")";
  }
  write_all(fd, answer.data(), answer.size());
  ::close(fd);
  ::_exit(0);  // no atexit handlers, no flushing of the parent's stdio buffers
}

// Resident bytes of a process (/proc/PID/statm's second field), 0 when unreadable.
double resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  double size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

double memory_limit(const std::string& path, const IsolationOptions& options) {
  if (options.memory_limit_bytes > 0) return options.memory_limit_bytes;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const double file_bytes = ec ? 0.0 : static_cast<double>(size);
  double limit = std::max(double(1 << 30), 64.0 * file_bytes);
  const double machine =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (machine > 0) limit = std::min(limit, 0.75 * machine);
  return limit;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + ", " +
           ::strsignal(WTERMSIG(status));
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

}  // namespace

std::string run_isolated(const std::string& path, const std::function<std::string()>& work,
                         const IsolationOptions& options) {
  if (!(options.timeout_seconds > 0 && options.timeout_seconds <= 1e6))
    throw InputError("isolation timeout = " + std::to_string(options.timeout_seconds) +
                     " s: must be in (0, 1e6]");
  if (!(options.memory_limit_bytes >= 0 && options.memory_limit_bytes < 1e18))
    throw InputError("isolation memory limit = " + std::to_string(options.memory_limit_bytes) +
                     " bytes: must be in [0, 1e18)");
  const double limit = memory_limit(path, options);
  // The child starts out sharing every page of ours: its growth is what counts.
  const double shared_at_fork = resident_bytes(::getpid());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw FileError(path, std::string("cannot start the reader process: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    throw FileError(path, "cannot start the reader process: " + why);
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], work, path);
  }
  ::close(fds[1]);

  std::string answer;
  bool timed_out = false, too_big = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_seconds);
  char buf[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    // Memory is checked at least 10 times a second: a runaway libhdf5 grows by about
    // 150 MB/s (the fuzz_dataset finding), so it ends within ~15 MB of the limit.
    if (resident_bytes(pid) - shared_at_fork > limit) {
      too_big = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;  // the child closed its end: finished or died
    answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string regenerate = "; regenerate it with `poslab-cli collect`";
  if (timed_out)
    throw FileError(path, "reading it did not finish within " +
                              std::to_string(static_cast<long long>(options.timeout_seconds)) +
                              " s (a corrupt file can make the HDF5 library loop)" + regenerate);
  if (too_big)
    throw FileError(path, "reading it took more than " +
                              std::to_string(static_cast<long long>(limit / (1 << 20))) +
                              " MB of memory, so PosLab stopped its reader (a corrupt file can "
                              "make the HDF5 library allocate without end)" +
                              regenerate);
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (answer.empty() || !clean_exit)
    throw FileError(path, "the HDF5 library crashed while reading it (" + describe_status(status) +
                              " in PosLab's reader process): the file is corrupt" + regenerate);
  const char tag = answer[0];
  answer.erase(0, 1);
  if (tag == 'O') return answer;
  if (tag == 'I') throw InputError(answer);
  const size_t nul = answer.find('\0');
  if (tag == 'F' && nul != std::string::npos)
    throw FileError(answer.substr(0, nul), answer.substr(nul + 1));
  throw FileError(path, "the reader process answered in an unknown way: " + answer.substr(0, 200));
}

}  // namespace poslab::io
