// Progress files: a round trip keeps everything, a corrupt file is kept aside and
// progress starts fresh with a notice, and a writer killed at any moment mid-save never
// leaves a file that fails to load (atomic replacement).
#include <catch2/catch.hpp>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/lessons/progress_file.hpp"

using namespace poslab;
using namespace poslab::io;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("poslab_progress_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
};

Progress sample(int lessons, int tag) {
  Progress p;
  p.language = "zh";
  for (int l = 0; l < lessons; ++l) {
    LessonProgress& lp = p.lessons[std::string("lesson-").append(std::to_string(l))];
    lp.checklist = {true, false, l % 2 == 0};
    lp.completed = l % 3 == 0;
    for (int q = 0; q < 8; ++q) {
      AnswerRecord& a =
          lp.answers[std::string("q").append(std::to_string(q))];  // GCC 12 -Wrestrict
      a.attempts = tag;
      a.answered = true;
      a.correct = q % 2 == 0;
      a.chosen = {0, 2};
      a.number = 3.25 + tag;
      a.seed = 0xFFFFFFFFFFFFFFF0ull + static_cast<unsigned>(q);
      a.text = "答案 " + std::string(200, 'x');
      a.ticks = {true, false};
    }
  }
  return p;
}

}  // namespace

TEST_CASE("progress survives a save and load unchanged") {
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const Progress p = sample(3, 7);
  save_progress(path, p);
  const ProgressLoad l = load_progress(path);
  CHECK(l.notice.empty());
  CHECK(l.progress.language == "zh");
  REQUIRE(l.progress.lessons.size() == 3);
  const AnswerRecord& a = l.progress.lessons.at("lesson-1").answers.at("q3");
  const AnswerRecord& b = p.lessons.at("lesson-1").answers.at("q3");
  CHECK(a.attempts == b.attempts);
  CHECK(a.correct == b.correct);
  CHECK(a.chosen == b.chosen);
  CHECK(a.number == b.number);
  CHECK(a.seed == b.seed);
  CHECK(a.text == b.text);
  CHECK(a.ticks == b.ticks);
  CHECK(l.progress.lessons.at("lesson-0").completed);
  CHECK(l.progress.lessons.at("lesson-2").checklist == std::vector<bool>{true, false, true});
}

TEST_CASE("a missing progress file starts fresh without a notice") {
  TempDir t;
  const ProgressLoad l = load_progress(progress_path(t.dir.string()));
  CHECK(l.notice.empty());
  CHECK(l.progress.lessons.empty());
}

TEST_CASE("a corrupt progress file is kept aside and progress starts fresh") {
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const char* bad[] = {
      "{\"format\": \"poslab-progress\", \"version\": 1, \"lessons\": {",  // truncated
      "[1, 2, 3]",                                                         // not ours
      "{\"format\": \"poslab-progress\", \"version\": 99, \"lessons\": {}}",
      "{\"format\": \"poslab-progress\", \"version\": 1, \"lessons\": {\"a\": {\"completed\": 3}}}",
      ""};
  for (const char* text : bad) {
    INFO("file contents: " << text);
    { std::ofstream(path) << text; }
    const ProgressLoad l = load_progress(path);
    CHECK(l.progress.lessons.empty());
    CHECK_THAT(l.notice, Catch::Contains("could not be read") && Catch::Contains("starts fresh"));
    // The reason alone, for the app's translated notice (lessons/ui.toml progress_corrupt).
    REQUIRE_FALSE(l.reason.empty());
    CHECK_THAT(l.notice, Catch::Contains("(" + l.reason + ")"));
    REQUIRE_FALSE(l.backup_path.empty());
    CHECK_THAT(l.backup_path, Catch::StartsWith(path + ".corrupt-"));
    CHECK(fs::exists(l.backup_path));
    CHECK_FALSE(fs::exists(path));
    std::ifstream in(l.backup_path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string kept = bytes.str();
    CHECK(kept == text);  // the user's file is kept byte for byte
  }
  // Five corrupt loads in the same second: five distinct backups.
  int backups = 0;
  for (const auto& e : fs::directory_iterator(t.dir))
    backups += e.path().filename().string().rfind("progress.json.corrupt-", 0) == 0 ? 1 : 0;
  CHECK(backups == 5);
}

TEST_CASE("a writer killed mid-save never leaves an unreadable progress file") {
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  save_progress(path, sample(1, 0));
  // Children save large progress in a loop; each is killed after a different delay, so
  // the kill lands at different points of the write, fsync and rename.
  for (int round = 0; round < 12; ++round) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      try {
        for (int i = 1;; ++i) save_progress(path, sample(40, i));
      } catch (...) {
        ::_exit(1);  // never return into the test runner from the child
      }
    }
    ::usleep(static_cast<useconds_t>(2000 + round * 2500));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    INFO("round " << round);
    REQUIRE(WIFSIGNALED(status));
    const ProgressLoad l = load_progress(path);
    CHECK(l.notice.empty());  // old or new contents, never torn
    CHECK_FALSE(l.progress.lessons.empty());
  }
}

TEST_CASE("a read-only load never moves or rewrites a progress file it cannot use") {
  // Issue 29 (M4): `poslab-cli quiz list` moved a newer-format file aside; the app then
  // started empty without a word.
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const std::string newer = "{\"format\": \"poslab-progress\", \"version\": 2, \"lessons\": {}}\n";
  std::ofstream(path) << newer;
  const ProgressLoad ro = load_progress(path, ProgressRead::read_only);
  CHECK_THAT(ro.notice, Catch::Contains("version 2") && Catch::Contains("left untouched"));
  CHECK(ro.backup_path.empty());
  CHECK(read_file(path) == newer);  // same bytes, same place
  CHECK(std::distance(fs::directory_iterator(t.dir), fs::directory_iterator()) == 1);
  // The app's load keeps it aside and says how to get it back.
  const ProgressLoad app = load_progress(path);
  REQUIRE_FALSE(app.backup_path.empty());
  CHECK(read_file(app.backup_path) == newer);
  CHECK_THAT(app.notice,
             Catch::Contains(app.backup_path) && Catch::Contains("rename it to " + path));
}

TEST_CASE("a progress file that cannot be read at all is left in place and flagged") {
  // A permission error (here a directory where the file should be; root reads mode 000).
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  fs::create_directories(path);
  for (ProgressRead mode : {ProgressRead::read_only, ProgressRead::keep_aside}) {
    const ProgressLoad l = load_progress(path, mode);
    CHECK(l.unreadable);
    CHECK(l.backup_path.empty());
    CHECK_THAT(l.notice, Catch::Contains(path) && Catch::Contains("left in place"));
    CHECK(fs::is_directory(path));
  }
}

TEST_CASE("progress_merge keeps what another window saved and applies this window's changes") {
  Progress base = sample(2, 1);
  Progress mine = base, theirs = base;
  mine.lessons["lesson-0"].answers["q1"].attempts = 10;    // this window answered q1
  mine.lessons["lesson-5"].answers["q0"].answered = true;  // and a lesson new to both
  theirs.lessons["lesson-0"].answers["q2"].attempts = 20;  // the other window answered q2
  theirs.lessons["lesson-1"].checklist = {false, false, false};
  theirs.lessons["lesson-1"].completed = true;
  theirs.language = "en";
  const Progress m = progress_merge(base, mine, theirs);
  CHECK(m.lessons.at("lesson-0").answers.at("q1").attempts == 10);
  CHECK(m.lessons.at("lesson-0").answers.at("q2").attempts == 20);
  CHECK(m.lessons.at("lesson-5").answers.at("q0").answered);
  CHECK(m.lessons.at("lesson-1").checklist == std::vector<bool>{false, false, false});
  CHECK(m.lessons.at("lesson-1").completed);
  CHECK(m.language == "en");  // this window did not change it
  // Nothing changed here: the saved file is what the other window wrote.
  CHECK(progress_merge(base, base, theirs) == theirs);
}

TEST_CASE("two processes answering on one progress file lose no answer") {
  // Issue 29 (M2): two windows on one data folder, last writer wins. Each child answers
  // its own questions, one save per answer, merging under the lock as the lessons lab does.
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  constexpr int kAnswers = 60;
  pid_t kids[2];
  for (int k = 0; k < 2; ++k) {
    kids[k] = ::fork();
    REQUIRE(kids[k] >= 0);
    if (kids[k] == 0) {
      try {
        Progress base = load_progress(path).progress, mine = base;
        for (int i = 0; i < kAnswers; ++i) {
          AnswerRecord& a =
              mine.lessons["lesson"].answers["w" + std::to_string(k) + "-" + std::to_string(i)];
          a.answered = true;
          a.attempts = i + 1;
          // As the lessons lab: a lock held past the short retry is a notice, and the
          // answers go with the next save.
          for (int tries = 0;; ++tries) {
            try {
              mine = base = save_progress_merged(path, base, mine);
              break;
            } catch (const FileError& e) {
              if (tries > 1000 || std::string(e.what()).find("is held") == std::string::npos) throw;
            }
          }
        }
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
  }
  for (pid_t kid : kids) {
    int status = 0;
    ::waitpid(kid, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  const ProgressLoad l = load_progress(path);
  REQUIRE(l.notice.empty());
  CHECK(l.progress.lessons.at("lesson").answers.size() == 2 * kAnswers);
}

TEST_CASE("a progress file a newer PosLab saved meanwhile is never written over") {
  // Issue 36 (M3): a window open since before a newer PosLab saved overwrote its file.
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const Progress base = sample(1, 1);
  save_progress(path, base);
  const std::string newer =
      "{\"format\": \"poslab-progress\", \"version\": 2, \"lessons\": {\"x\": [1, 2]}}\n";
  { std::ofstream(path, std::ios::binary) << newer; }
  Progress mine = base;
  mine.lessons["lesson-0"].completed = !mine.lessons["lesson-0"].completed;
  CHECK_THROWS_WITH(save_progress_merged(path, base, mine), Catch::Contains("progress.json") &&
                                                                Catch::Contains("newer PosLab") &&
                                                                Catch::Contains("version 2"));
  CHECK(read_file(path) == newer);  // kept, byte for byte
}

TEST_CASE("a progress file damaged meanwhile is kept aside before this window saves") {
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const Progress base = sample(1, 1);
  save_progress(path, base);
  { std::ofstream(path, std::ios::binary) << "{ not json"; }
  const Progress saved = save_progress_merged(path, base, base);
  CHECK(load_progress(path).progress == saved);
  int kept = 0;
  for (const auto& e : fs::directory_iterator(t.dir))
    if (e.path().filename().string().rfind("progress.json.corrupt-", 0) == 0) {
      CHECK(read_file(e.path().string()) == "{ not json");
      ++kept;
    }
  CHECK(kept == 1);
}

TEST_CASE("a progress lock held elsewhere is an error after a short retry, not a freeze") {
  // Issue 36 (low): a held lock froze the window (a blocking flock on every save).
  TempDir t;
  const std::string path = progress_path(t.dir.string());
  const Progress p = sample(1, 1);
  save_progress(path, p);
  // flock locks belong to an open file description: this one conflicts with the save's.
  const int fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  CHECK_THROWS_WITH(save_progress_merged(path, p, p),
                    Catch::Contains("progress.json.lock") && Catch::Contains("is held"));
  ::close(fd);  // released: the next save goes through
  CHECK(save_progress_merged(path, p, p) == p);
}
