// Writing user files so that a crash or kill at any moment leaves either the old file or
// the new one, never a torn mix: write a temporary file in the same directory, flush it to
// disk, then rename it over the target (rename is atomic on POSIX file systems). Reading
// user files without hanging: only regular files, of bounded size.
#pragma once
#include <cstddef>
#include <string>

namespace poslab {

// Throws FileError naming the path if any step fails (the old file is then untouched).
// The old file's permission bits are kept (a new file gets 0666 minus the umask); a target
// that is a symbolic link we own is written through (the link stays a link); a target that
// is not a regular file (a device such as /dev/full, a FIFO, a directory) is refused.
// Temporary files "<path>.tmp.<pid>[.XXXXXX]" left by killed writers (pid no longer running)
// are removed after a successful write.
void write_file_atomically(const std::string& path, const std::string& contents);
// For a process about to end at once (the app's Quit watchdog, std::_Exit): waits up to
// `timeout_ms` for the atomic writes in progress on other threads to finish and lets no new
// one start, so ending the process right after leaves no write half done (no temporary file
// beside the target). Returns whether every write in progress finished in time.
bool finish_atomic_writes_for_exit(int timeout_ms);

// A file about to be written, checked before a long run spends minutes on it (not at its
// first checkpoint): its folder exists and takes files, and the path is not a directory,
// FIFO or device. InputError "<what> <path>: ..." saying what to change otherwise.
void require_writable_path(const std::string& path, const std::string& what);

// What a write to `path` replaces: `path` itself, or the file a symbolic link at `path`
// names when the link is ours (another user's link in a shared folder is refused, as the
// kernel's protected_symlinks would). FileError when it exists and is not a regular file.
struct ReplaceTarget {
  std::string path;     // the file to rename over
  bool exists = false;  // a regular file is there now
  unsigned mode = 0;    // its permission bits (st_mode & 07777) when it exists
  unsigned uid = 0, gid = 0;
};
ReplaceTarget replace_target(const std::string& path);

// Creates an empty temporary file beside `path`, "<path>.tmp.<pid>.XXXXXX" with an
// unpredictable suffix, with O_CREAT | O_EXCL (so never through a planted symbolic link) and
// mode 0600; returns its descriptor and sets `name`. Throws FileError naming `path`.
int create_temporary(const std::string& path, std::string& name);

// Permission bits of a new file: 0666 minus the process's umask.
unsigned new_file_mode();

// Removes "<path>.tmp.<pid>[.XXXXXX]" files whose process is gone (killed writers').
void remove_stale_temporaries(const std::string& path);

// Reads a whole file; throws FileError naming the path if it cannot be opened, is not a
// regular file (a FIFO would block forever, a device never end) or is larger than
// max_bytes (default 256 MiB: far more than any text input PosLab reads).
std::string read_file(const std::string& path, size_t max_bytes = size_t{256} << 20);

}  // namespace poslab
