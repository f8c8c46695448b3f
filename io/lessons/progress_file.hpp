// Saving and loading a learner's progress as JSON in the user's data directory. Writes are
// atomic (write_file_atomically), so a crash or kill at any moment leaves the old or the
// new file. A file that cannot be read as progress is moved aside to
// progress.json.corrupt-<timestamp>, progress starts fresh and the caller gets a notice.
#pragma once
#include <string>

#include "core/quiz/progress.hpp"

namespace poslab::io {

inline constexpr const char* kProgressFormat = "poslab-progress";  // "format" field
inline constexpr int kProgressVersion = 1;                         // "version" field

struct ProgressLoad {
  Progress progress;        // what was read, or fresh progress
  std::string notice;       // for the user when the file was corrupt, else empty
  std::string backup_path;  // where the corrupt file was moved, else empty
  std::string reason;       // why the corrupt file could not be read, else empty
};

// "<data_dir>/progress.json".
std::string progress_path(const std::string& data_dir);

// A missing file gives fresh progress and no notice. A corrupt file (bad JSON, wrong
// format or version, wrong types) is renamed to <path>.corrupt-<YYYYmmdd-HHMMSS> and
// reported in `notice`. Throws FileError only when the corrupt file cannot be moved aside.
ProgressLoad load_progress(const std::string& path);
// Throws FileError naming the path when the write fails (the old file is then untouched).
void save_progress(const std::string& path, const Progress& progress);

// The JSON text, and back. progress_from_json throws FileError("<source>: ...") naming
// the field at fault.
std::string progress_to_json(const Progress& progress);
Progress progress_from_json(const std::string& text, const std::string& source);

}  // namespace poslab::io
