// Atomic file replacement (see atomic_file.hpp). POSIX calls so the data can be fsync'ed
// before the rename; std::ofstream cannot promise that. Temporaries get unpredictable names
// and are created exclusively, so a link planted in a shared folder is never followed.
#include "io/files/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>

#include "core/common/errors.hpp"

namespace poslab {
namespace {

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// The process's umask, read without changing it (umask() itself sets it, racing threads).
mode_t current_umask() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 022;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 022;
  buf[n] = '\0';
  const char* at = std::strstr(buf, "\nUmask:");
  return at ? static_cast<mode_t>(std::strtoul(at + 7, nullptr, 8)) : 022;
}

const char* file_kind(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO (named pipe)"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

}  // namespace

unsigned new_file_mode() {
  return 0666 & ~current_umask();
}

void remove_stale_temporaries(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  const std::string dir = parent_dir(path);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>" (older PosLabs) or "<pid>.XXXXXX" (create_temporary's).
    std::string digits = name.substr(prefix.size());
    if (const auto dot = digits.find('.'); dot != std::string::npos) {
      if (digits.size() - dot - 1 != 6) continue;
      digits.resize(dot);
    }
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long pid = std::strtol(digits.c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((dir + '/').append(name).c_str());
  }
  ::closedir(d);
}

ReplaceTarget replace_target(const std::string& path) {
  ReplaceTarget t;
  t.path = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return t;
    throw FileError(path, std::string("cannot look at the file: ") + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    if (st.st_uid != ::geteuid())
      throw FileError(path,
                      "is a symbolic link owned by another user; refusing to write through it "
                      "(remove it, or write to its target directly)");
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) {
      if (errno != ENOENT)
        throw FileError(path,
                        std::string("cannot follow the symbolic link: ") + std::strerror(errno));
      // A link to a file that is not there yet: create that file.
      std::string target(PATH_MAX, '\0');
      const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
      if (n <= 0 || static_cast<size_t>(n) >= target.size())
        throw FileError(path, "cannot read the symbolic link");
      target.resize(static_cast<size_t>(n));
      t.path = target[0] == '/' ? target : parent_dir(path) + "/" + target;
      if (::lstat(t.path.c_str(), &st) == 0)  // a chain of links: refuse, do not guess
        throw FileError(path, "is a symbolic link to " + t.path +
                                  ", which cannot be followed; write to the file directly");
      return t;
    }
    t.path = real;
    std::free(real);
    if (::stat(t.path.c_str(), &st) != 0)
      throw FileError(path,
                      std::string("cannot look at the link's target: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    throw FileError(path, std::string("is ") + file_kind(st.st_mode) +
                              "; refusing to replace it (give the path of a regular file)");
  t.exists = true;
  t.mode = st.st_mode & 07777;
  t.uid = st.st_uid;
  t.gid = st.st_gid;
  return t;
}

int create_temporary(const std::string& path, std::string& name) {
  std::string templ = path + ".tmp." + std::to_string(::getpid()) + ".XXXXXX";
  const int fd = ::mkostemp(templ.data(), O_CLOEXEC);
  if (fd < 0)
    throw FileError(
        path, std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  name = templ;
  return fd;
}

namespace {
// Writers hold it shared; finish_atomic_writes_for_exit takes it exclusively, for good.
std::shared_timed_mutex& atomic_writes_gate() {
  static std::shared_timed_mutex gate;
  return gate;
}
}  // namespace

bool finish_atomic_writes_for_exit(int timeout_ms) {
  return atomic_writes_gate().try_lock_for(std::chrono::milliseconds(timeout_ms));
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::shared_lock<std::shared_timed_mutex> writing(atomic_writes_gate());
  const ReplaceTarget target = replace_target(path);
  std::string tmp;
  const int fd = create_temporary(target.path, tmp);
  const auto fail = [&](const std::string& what) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    throw FileError(path, what + why);
  };
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed (is the disk full?): ");
    }
    done += static_cast<size_t>(n);
  }
  // The old file's permission bits (and owner, when root replaces another user's file).
  if (::fchmod(fd, target.exists ? target.mode : new_file_mode()) != 0)
    fail("cannot set the file's permissions: ");
  if (target.exists && ::geteuid() == 0) (void)!::fchown(fd, target.uid, target.gid);
  if (::fsync(fd) != 0) fail("could not flush to disk: ");
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw FileError(path, "could not flush to disk: " + why);
  }
  if (::rename(tmp.c_str(), target.path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw FileError(path, "could not replace the file: " + why);
  }
  // Make the rename itself durable: fsync the directory.
  const int dfd = ::open(parent_dir(target.path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  remove_stale_temporaries(target.path);
}

std::string read_file(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path, "is not a regular file (a directory, FIFO or device?); give a file");
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    ::close(fd);
    throw FileError(path, "is " + std::to_string(st.st_size) + " bytes, more than the " +
                              std::to_string(max_bytes) + " this input may have (wrong file?)");
  }
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw FileError(path, "read failed: " + why);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) {  // grew while we read
      ::close(fd);
      throw FileError(path, "is larger than the " + std::to_string(max_bytes) +
                                " bytes this input may have (wrong file?)");
    }
  }
  ::close(fd);
  return out;
}

void require_writable_path(const std::string& path, const std::string& what) {
  const std::string slash = path.find('/') == std::string::npos ? "" : path;
  const std::string dir = slash.empty() ? "." : slash.substr(0, slash.rfind('/') + 1);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(what + " " + path + ": the folder " + dir +
                     " does not exist (create it first)");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + " " + path + ": cannot write in the folder " + dir + " (" +
                     std::strerror(errno) + ")");
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(what + " " + path +
                     ": is not a regular file (a directory, FIFO or device?); give a file path");
}

}  // namespace poslab
