// The user's config and data folders (see user_dirs.hpp).
#include "io/files/user_dirs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/common/errors.hpp"

namespace poslab {

std::string user_dir(UserDir kind) {
  const bool config = kind == UserDir::config;
  if (const char* v = std::getenv(config ? "XDG_CONFIG_HOME" : "XDG_DATA_HOME"); v && *v == '/')
    return std::string(v) + "/poslab";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + (config ? "/.config/poslab" : "/.local/share/poslab");
  // No home at all (a service, a stripped environment): a folder of this user's own in the
  // shared temporary folder, never one that whoever came first owns.
  const char* t = std::getenv("TMPDIR");
  const std::string root =
      std::string(t && *t == '/' ? t : "/tmp") + "/poslab-" + std::to_string(::geteuid());
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST)
    throw FileError(root,
                    std::string("cannot create this user's PosLab folder (HOME is not set): ") +
                        std::strerror(errno) + "; set HOME or XDG_DATA_HOME");
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 077) != 0)
    throw FileError(root,
                    "is not a private folder of this user (another user's, a link, or open to "
                    "others); PosLab will not keep files there. Set HOME or XDG_DATA_HOME");
  return root + (config ? "/config" : "/data");
}

}  // namespace poslab
