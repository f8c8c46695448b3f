// Progress files: a round trip keeps everything, a corrupt file is kept aside and
// progress starts fresh with a notice, and a writer killed at any moment mid-save never
// leaves a file that fails to load (atomic replacement).
#include <catch2/catch.hpp>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"
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
