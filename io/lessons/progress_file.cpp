// Progress as JSON (nlohmann-json), written atomically; corrupt files are kept aside.
#include "io/lessons/progress_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Json bools(const std::vector<bool>& v) {
  Json a = Json::array();
  for (bool b : v) a.push_back(b);
  return a;
}

std::vector<bool> read_bools(const Json& j) {
  if (!j.is_array()) throw Json::type_error::create(302, "expected an array of booleans", &j);
  std::vector<bool> out;
  for (const auto& b : j) out.push_back(b.get<bool>());
  return out;
}

// Whole numbers in [lo, hi] only: nlohmann's get<int>() would wrap 4294967297 to 1 and
// get<uint64_t>() would turn -1 into 2^64-1.
int64_t read_int(const Json& j, int64_t lo, int64_t hi) {
  if (j.is_number_unsigned() && j.get<uint64_t>() <= static_cast<uint64_t>(hi) &&
      static_cast<int64_t>(j.get<uint64_t>()) >= lo)
    return static_cast<int64_t>(j.get<uint64_t>());
  if (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() >= lo &&
      j.get<int64_t>() <= hi)
    return j.get<int64_t>();
  throw Json::type_error::create(
      302, "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
      &j);
}

uint64_t read_u64(const Json& j) {
  if (!j.is_number_unsigned())
    throw Json::type_error::create(302, "expected a whole number in [0, 2^64-1]", &j);
  return j.get<uint64_t>();
}

// JSON nesting a progress file needs (lessons.id.answers.qid.ticks = 6 levels).
constexpr int kMaxProgressDepth = 16;

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string progress_path(const std::string& data_dir) {
  return (fs::path(data_dir) / "progress.json").string();
}

std::string progress_to_json(const Progress& p) {
  Json j;
  j["format"] = kProgressFormat;
  j["version"] = kProgressVersion;
  j["language"] = p.language;
  Json lessons = Json::object();
  for (const auto& [id, lp] : p.lessons) {
    Json l;
    l["completed"] = lp.completed;
    l["checklist"] = bools(lp.checklist);
    Json answers = Json::object();
    for (const auto& [qid, a] : lp.answers) {
      Json r;
      r["attempts"] = a.attempts;
      r["answered"] = a.answered;
      r["correct"] = a.correct;
      if (!a.chosen.empty()) r["chosen"] = a.chosen;
      r["number"] = a.number;
      r["seed"] = a.seed;
      if (!a.text.empty()) r["text"] = a.text;
      if (!a.ticks.empty()) r["ticks"] = bools(a.ticks);
      answers[qid] = std::move(r);
    }
    l["answers"] = std::move(answers);
    lessons[id] = std::move(l);
  }
  j["lessons"] = std::move(lessons);
  // replace: an id or text that is not UTF-8 is saved with U+FFFD instead of throwing.
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Progress progress_from_json(const std::string& text, const std::string& source) {
  Json j;
  try {
    // Depth is limited inside the (iterative) parser, before anything recursive sees it.
    j = Json::parse(text, [](int depth, Json::parse_event_t event, Json&) {
      if (depth > kMaxProgressDepth &&
          (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
        throw Json::parse_error::create(101, 0, "nested too deeply for a progress file", nullptr);
      return true;
    });
  } catch (const Json::parse_error& e) {
    throw FileError(
        source, "not valid JSON (error at byte " + std::to_string(e.byte) + ": " + e.what() + ")");
  } catch (const Json::exception& e) {
    // out_of_range.406: a number such as 1e400 that no double holds.
    throw FileError(source, std::string("not a readable progress file (") + e.what() + ")");
  }
  std::string field = "(top level)";
  try {
    if (!j.is_object() || j.value("format", "") != std::string(kProgressFormat))
      throw FileError(source, std::string("not a PosLab progress file (\"format\" is not \"") +
                                  kProgressFormat + "\")");
    const int64_t version = read_int(j.at("version"), INT32_MIN, INT32_MAX);
    if (version != kProgressVersion)
      throw FileError(source, "progress version " + std::to_string(version) +
                                  " is not supported (this build reads " +
                                  std::to_string(kProgressVersion) + ")");
    Progress p;
    field = "language";
    p.language = j.contains("language") && j["language"].is_string()
                     ? j["language"].get<std::string>()
                     : "en";
    if (p.language != "en" && p.language != "zh") p.language = "en";
    if (!j.at("lessons").is_object())
      throw Json::type_error::create(302, "lessons: expected an object", &j);
    for (const auto& [id, l] : j.at("lessons").items()) {
      field = "lessons." + id;
      LessonProgress lp;
      lp.completed = l.at("completed").get<bool>();
      lp.checklist = read_bools(l.at("checklist"));
      if (!l.is_object() || !l.at("answers").is_object())
        throw Json::type_error::create(302, "expected an object with \"answers\"", &l);
      for (const auto& [qid, r] : l.at("answers").items()) {
        field = "lessons." + id + ".answers." + qid;
        AnswerRecord a;
        a.attempts = static_cast<int>(read_int(r.at("attempts"), 0, INT32_MAX));
        a.answered = r.at("answered").get<bool>();
        a.correct = r.at("correct").get<bool>();
        if (r.contains("chosen")) {
          if (!r.at("chosen").is_array())
            throw Json::type_error::create(302, "chosen: expected an array", &r);
          for (const auto& c : r.at("chosen"))
            a.chosen.push_back(static_cast<int>(read_int(c, 0, 1000000)));
        }
        a.number = r.at("number").get<double>();
        a.seed = read_u64(r.at("seed"));
        if (r.contains("text")) a.text = r.at("text").get<std::string>();
        if (r.contains("ticks")) a.ticks = read_bools(r.at("ticks"));
        lp.answers[qid] = std::move(a);
      }
      p.lessons[id] = std::move(lp);
    }
    return p;
  } catch (const Json::exception& e) {
    // nlohmann's text starts with "[json.exception.type_error.302] ": keep only the reason.
    std::string why = e.what();
    if (const size_t close = why.find("] "); close != std::string::npos) why.erase(0, close + 2);
    throw FileError(source, field + ": " + why);
  }
}

namespace {

// The "version" of a progress file this build cannot read, when it says it is one written by
// a newer PosLab (format "poslab-progress", an integer version above ours), else 0.
int64_t newer_progress_version(const std::string& text) {
  try {
    const Json j = Json::parse(text, [](int depth, Json::parse_event_t event, Json&) {
      if (depth > kMaxProgressDepth &&
          (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
        throw Json::parse_error::create(101, 0, "nested too deeply", nullptr);
      return true;
    });
    if (!j.is_object() || j.value("format", "") != std::string(kProgressFormat)) return 0;
    const auto v = j.find("version");
    if (v == j.end() || !v->is_number_integer()) return 0;
    return v->get<int64_t>() > kProgressVersion ? v->get<int64_t>() : 0;
  } catch (const Json::exception&) {
    return 0;
  }
}

}  // namespace

ProgressLoad load_progress(const std::string& path, ProgressRead mode) {
  ProgressLoad out;
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  std::string text;
  try {
    text = read_file(path);
  } catch (const FileError& e) {
    // Not a corrupt file: one we may not read (permissions) or cannot now. It stays where it
    // is, and nothing replaces it.
    out.unreadable = true;
    out.reason = e.what();
    out.notice = "Your lesson progress could not be read (" + out.reason +
                 "). It was left in place and nothing is saved over it; fix the file's "
                 "permissions (chmod u+rw " +
                 path + ") and start again.";
    return out;
  }
  try {
    out.progress = progress_from_json(text, path);
    return out;
  } catch (const FileError& e) {
    out.reason = e.what();
    if (mode == ProgressRead::read_only) {
      out.notice = "Your lesson progress could not be read (" + out.reason +
                   "); it was left untouched and fresh progress is shown.";
      return out;
    }
    // Keep the unreadable file for the user (and for us to learn from), start afresh.
    std::string backup = path + ".corrupt-" + timestamp();
    for (int n = 2; fs::exists(backup, ec); ++n)
      backup = path + ".corrupt-" + timestamp() + "-" + std::to_string(n);
    if (std::rename(path.c_str(), backup.c_str()) != 0)
      throw FileError(path, std::string("is corrupt and could not be moved aside: ") +
                                std::strerror(errno) + " (move or delete it by hand)");
    out.backup_path = backup;
    out.notice = "Your lesson progress could not be read (" + out.reason + "). It was kept as " +
                 backup + "; progress starts fresh. To get it back, rename it to " + path +
                 " (with the PosLab version that wrote it, if newer).";
    return out;
  }
}

void save_progress(const std::string& path, const Progress& progress) {
  write_file_atomically(path, progress_to_json(progress));
}

Progress save_progress_merged(const std::string& path, const Progress& base, const Progress& mine) {
  // The lock file, not the progress file: the atomic write replaces progress.json, so a lock
  // on it would be on a file nobody opens next.
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw FileError(lock_path, std::string("cannot be opened to lock the progress file: ") +
                                   std::strerror(errno));
  // Not blocking: a lock another process holds (a stuck poslab-cli, a window in a debugger)
  // must not freeze this window. Others hold it for one read and one write (milliseconds):
  // a few short retries, then the caller says so and saves at the next change.
  for (int tries = 0; ::flock(fd, LOCK_EX | LOCK_NB) != 0;) {
    const int err = errno;
    if (err == EINTR) continue;
    if (err == EWOULDBLOCK && ++tries < kProgressLockTries) {
      ::usleep(kProgressLockRetryUs);
      continue;
    }
    ::close(fd);
    throw FileError(lock_path, err == EWOULDBLOCK
                                   ? "is held by another PosLab window or poslab-cli command; "
                                     "this window's answers are kept and saved with the next "
                                     "one (close the other program if this stays)"
                                   : std::string("cannot be locked: ") + std::strerror(err));
  }
  try {
    Progress merged = mine;
    std::error_code ec;
    if (fs::exists(path, ec)) {
      const std::string text = read_file(path);
      try {
        merged = progress_merge(base, mine, progress_from_json(text, path));
      } catch (const FileError&) {
        // Written meanwhile by a newer PosLab: never written over, the newer one keeps it.
        if (const int64_t v = newer_progress_version(text); v > 0)
          throw FileError(path, "was saved by a newer PosLab (progress version " +
                                    std::to_string(v) + ", this one reads " +
                                    std::to_string(kProgressVersion) +
                                    ") while this window was open; it is kept as it is and "
                                    "this window's answers are not saved over it (use the "
                                    "newer PosLab)");
        // Damaged meanwhile: kept beside it (as load_progress does), then this one is saved.
        std::string backup = path + ".corrupt-" + timestamp();
        for (int n = 2; fs::exists(backup, ec); ++n)
          backup = path + ".corrupt-" + timestamp() + "-" + std::to_string(n);
        if (std::rename(path.c_str(), backup.c_str()) != 0)
          throw FileError(path, std::string("cannot be read and could not be moved aside: ") +
                                    std::strerror(errno) + " (move or delete it by hand)");
      }
    }
    save_progress(path, merged);
    ::close(fd);  // releases the lock
    return merged;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

}  // namespace poslab::io
