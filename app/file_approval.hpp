// A file the user said yes to: a link or a pasted preset that names a file (a dataset, a
// checkpoint) opens it only once approved. The approval is for that file as it was then
// (path, size, modification time): a file replaced or rewritten since asks again.
#pragma once
#include <sys/stat.h>

#include <string>

namespace poslab::app {

struct FileApproval {
  std::string path;         // "" = nothing approved
  long long size = -1;      // bytes when approved, -1 = could not be examined (missing)
  long long mtime_ns = -1;  // modification time when approved, nanoseconds

  // The file at `path` as it is now.
  static FileApproval of(const std::string& path) {
    FileApproval a;
    a.path = path;
    struct stat st {};
    if (!path.empty() && ::stat(path.c_str(), &st) == 0) {
      a.size = static_cast<long long>(st.st_size);
      a.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    }
    return a;
  }
  // True if `p` is the approved file and it has not changed since.
  bool approves(const std::string& p) const { return !p.empty() && *this == of(p); }
  bool operator==(const FileApproval&) const = default;
};

}  // namespace poslab::app
