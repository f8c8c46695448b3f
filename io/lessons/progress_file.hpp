// Saving and loading a learner's progress as JSON in the user's data directory. Writes are
// atomic (write_file_atomically), so a crash or kill at any moment leaves the old or the
// new file, and merge with what another window saved meanwhile (under a lock). A file that
// is not readable progress is moved aside to progress.json.corrupt-<timestamp> (the app),
// or left where it is (a read-only command); the caller gets a notice either way.
#pragma once
#include <string>

#include "core/quiz/progress.hpp"

namespace poslab::io {

inline constexpr const char* kProgressFormat = "poslab-progress";  // "format" field
inline constexpr int kProgressVersion = 1;                         // "version" field
inline constexpr int kProgressLockTries = 25;       // save_progress_merged's lock attempts,
inline constexpr int kProgressLockRetryUs = 20000;  // this far apart (0.5 s in all)

struct ProgressLoad {
  Progress progress;        // what was read, or fresh progress
  std::string notice;       // for the user when the file was not read, else empty
  std::string backup_path;  // where the corrupt file was moved, else empty
  std::string reason;       // why the file could not be read, else empty
  bool unreadable = false;  // the file exists but could not be read at all (permissions, an
                            // I/O error): left in place, and saving must not replace it
};

// What load_progress may do with a file it cannot use.
enum class ProgressRead {
  keep_aside,  // the app: move a corrupt or newer-format file aside, start fresh, say so
  read_only,   // a command that only reads (poslab-cli quiz list): never move or rewrite
};

// "<data_dir>/progress.json".
std::string progress_path(const std::string& data_dir);

// A missing file gives fresh progress and no notice. A file that cannot be read at all
// (permissions) is left in place with `unreadable` set. A corrupt file (bad JSON, wrong
// format or a newer version, wrong types): keep_aside renames it to
// <path>.corrupt-<YYYYmmdd-HHMMSS>; read_only leaves it. Both report it in `notice`, saying
// how to get it back. Throws FileError only when the corrupt file cannot be moved aside.
ProgressLoad load_progress(const std::string& path, ProgressRead mode = ProgressRead::keep_aside);
// Throws FileError naming the path when the write fails (the old file is then untouched).
void save_progress(const std::string& path, const Progress& progress);
// Saves `mine` over what is on disk now, keeping what another window or command saved since
// `base` (what this one loaded or last saved): under an exclusive lock on <path>.lock, the
// file is read again, progress_merge(base, mine, disk) is written atomically and returned
// (the caller's new `base`). The lock is tried kProgressLockTries times, never waited on.
// A file on disk of a newer progress version is never written over (FileError saying so);
// one that cannot be read as progress is kept as <path>.corrupt-<time> and mine is written.
// Throws FileError naming the path when the lock (held elsewhere) or the write fails.
Progress save_progress_merged(const std::string& path, const Progress& base, const Progress& mine);

// The JSON text, and back. progress_from_json throws FileError("<source>: ...") naming
// the field at fault.
std::string progress_to_json(const Progress& progress);
Progress progress_from_json(const std::string& text, const std::string& source);

}  // namespace poslab::io
