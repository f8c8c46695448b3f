// Hostile input to the core and io readers that the command-line tests cannot reach
// directly: progress files (numbers out of range, deep nesting, wrapping integers), strict
// UTF-8 in the tokenizer, read_file on FIFOs, the clean-up of temporaries that a killed
// atomic write leaves, and (issue 29) what atomic writes replace and where user files live.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/attention/tokenizer.hpp"
#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/files/user_dirs.hpp"
#include "io/lessons/progress_file.hpp"

using namespace poslab;
using namespace poslab::io;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("poslab_rel_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

std::string progress_with_answer(const std::string& field, const std::string& value) {
  std::string answer = R"({"attempts": 1, "answered": true, "correct": false, "number": 0,
                          "seed": 3})";
  const std::string key = "\"" + field + "\": ";
  const size_t at = answer.find(key);
  if (at != std::string::npos) {
    const size_t end = answer.find_first_of(",}", at + key.size());
    answer.replace(at + key.size(), end - at - key.size(), value);
  } else {
    answer.insert(1, key + value + ", ");
  }
  return R"({"format": "poslab-progress", "version": 1, "lessons": {"l": {"completed": false,
            "checklist": [], "answers": {"q": )" +
         answer + "}}}}";
}

}  // namespace

TEST_CASE("progress files: out-of-range numbers, deep nesting and wrapping integers are errors") {
  CHECK_NOTHROW(progress_from_json(progress_with_answer("attempts", "2"), "p.json"));
  const std::string digits333(333, '9');
  const std::pair<std::string, std::string> bad[] = {
      {"number", "1e400"},
      {"number", digits333},
      {"attempts", "4294967297"},
      {"attempts", "-1"},
      {"attempts", "1.5"},
      {"seed", "-1"},
      {"seed", "18446744073709551616"},
      {"chosen", "[4294967296]"},
  };
  for (const auto& [field, value] : bad) {
    const std::string text = progress_with_answer(field, value);
    INFO(field << " = " << value.substr(0, 40));
    CHECK_THROWS_WITH(progress_from_json(text, "p.json"), Catch::StartsWith("p.json: "));
  }
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH(progress_from_json(deep, "deep.json"), Catch::Contains("nested too deeply"));
  const std::string deep_inside = R"({"format": "poslab-progress", "version": 1, "lessons": )" +
                                  std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK_THROWS_AS(progress_from_json(deep_inside, "deep.json"), FileError);

  // load_progress keeps such a file aside and starts afresh instead of failing.
  const std::string path = scratch("progress.json");
  { std::ofstream(path) << progress_with_answer("number", "1e400"); }
  const ProgressLoad load = load_progress(path);
  CHECK_FALSE(load.notice.empty());
  CHECK(fs::exists(load.backup_path));
}

TEST_CASE("progress saved with text that is not UTF-8 is written and reads back") {
  Progress p;
  p.lessons["l"].answers["q"].text = "ok \xff\xfe bytes";
  const std::string saved = progress_to_json(p);
  const Progress back = progress_from_json(saved, "saved");
  CHECK(back.lessons.at("l").answers.at("q").text == "ok \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST_CASE("the tokenizer decodes UTF-8 strictly") {
  const char* invalid[] = {
      "\xc0\xaf",          // overlong '/'
      "\xc1\xbf",          // overlong
      "\xe0\x80\xaf",      // overlong 3-byte
      "\xf0\x80\x80\xaf",  // overlong 4-byte
      "\xed\xa0\x80",      // surrogate U+D800
      "\xed\xbf\xbf",      // surrogate U+DFFF
      "\xf4\x90\x80\x80",  // U+110000
      "\xf5\x80\x80\x80",  // lead byte past U+10FFFF
      "\x80",              // stray continuation
      "\xe4\xb8",          // truncated
      "\xe4\x41\x41",      // missing continuation
  };
  for (const char* bytes : invalid) {
    INFO("bytes of length " << std::strlen(bytes));
    CHECK_THROWS_WITH(tokenize_sentence(std::string("a ") + bytes + " b", 64),
                      Catch::Contains("invalid UTF-8"));
  }
  // The extremes that are valid: U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF, U+10000,
  // U+10FFFF, each one token.
  const std::string edges =
      "\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf \xf0\x90\x80\x80 "
      "\xf4\x8f\xbf\xbf";
  CHECK(tokenize_sentence(edges, 64).size() == 8);
  CHECK(tokenize_sentence("我喜欢NLP", 64) == std::vector<std::string>{"我", "喜", "欢", "NLP"});
}

TEST_CASE("read_file refuses FIFOs and directories instead of blocking") {
  const std::string fifo = scratch("fifo");
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_file(fifo), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(read_file(fs::path(fifo).parent_path().string()),
                    Catch::Contains("not a regular file"));
  const std::string big = scratch("big.txt");
  { std::ofstream(big) << std::string(5000, 'x'); }
  CHECK_THROWS_WITH(read_file(big, 4096), Catch::Contains("more than the 4096"));
  CHECK(read_file(big).size() == 5000);
}

TEST_CASE("an atomic write removes the temporaries of writers that were killed") {
  const std::string path = scratch("settings.json");
  // A process id that is certainly gone: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = path + ".tmp." + std::to_string(dead);
  const std::string live = path + ".tmp." + std::to_string(::getppid());  // still running
  const std::string other = path + ".tmp.notapid";
  for (const auto& f : {stale, live, other}) std::ofstream(f) << "half";
  write_file_atomically(path, "{}");
  CHECK(read_file(path) == "{}");
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other));
  fs::remove(live);
  fs::remove(other);
}

// Issue 29 (M1): temporaries get unpredictable names created exclusively, so a link planted
// at the old predictable name "<path>.tmp.<pid>" changes nothing; a device or FIFO target is
// refused; the old file's mode is kept; a symbolic link of ours is written through.
TEST_CASE("atomic writes: planted links, device and FIFO targets, modes and our own links") {
  const std::string path = scratch("m1.json");
  const std::string victim = scratch("m1_victim");
  { std::ofstream(victim) << "secret"; }
  fs::remove(path + ".tmp." + std::to_string(::getpid()));
  fs::create_symlink(victim, path + ".tmp." + std::to_string(::getpid()));
  write_file_atomically(path, "new");
  CHECK(read_file(victim) == "secret");
  CHECK(read_file(path) == "new");
  fs::remove(path + ".tmp." + std::to_string(::getpid()));

  const std::string fifo = scratch("m1.fifo");
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(write_file_atomically(fifo, "x"), Catch::Contains("is a FIFO"));
  CHECK(fs::is_fifo(fifo));
  CHECK_THROWS_WITH(write_file_atomically("/dev/null", "x"),
                    Catch::Contains("is a character device; refusing to replace it"));
  CHECK(fs::is_character_file("/dev/null"));
  CHECK_THROWS_WITH(write_file_atomically(fs::path(path).parent_path().string(), "x"),
                    Catch::Contains("is a directory"));

  ::chmod(path.c_str(), 0640);
  write_file_atomically(path, "again");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  const std::string link = scratch("m1_link.json");
  fs::remove(link);
  fs::create_symlink(path, link);
  write_file_atomically(link, "through");
  CHECK(fs::is_symlink(link));
  CHECK(read_file(path) == "through");
  const std::string dangling = scratch("m1_dangling.json"), later = scratch("m1_later.json");
  fs::remove(dangling);
  fs::remove(later);
  fs::create_symlink(later, dangling);
  write_file_atomically(dangling, "created");
  CHECK(fs::is_symlink(dangling));
  CHECK(read_file(later) == "created");

  // A new file: 0666 minus the umask; no temporaries left.
  const std::string fresh = scratch("m1_fresh.json");
  fs::remove(fresh);
  const mode_t old_mask = ::umask(027);
  write_file_atomically(fresh, "{}");
  ::umask(old_mask);
  REQUIRE(::stat(fresh.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);

  // A temporary name is unpredictable: two in a row differ, and both are created anew.
  std::string a, b;
  const int fa = create_temporary(path, a), fb = create_temporary(path, b);
  CHECK(a != b);
  CHECK(a.rfind(path + ".tmp." + std::to_string(::getpid()) + ".", 0) == 0);
  ::close(fa);
  ::close(fb);
  fs::remove(a);
  fs::remove(b);
}

// Issue 29: with HOME and XDG_* unset, files went to one shared /tmp/poslab owned by whoever
// came first. Now a per-user folder, private, or an error naming it.
TEST_CASE("user folders: XDG, HOME, and a private per-user folder without either") {
  const auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto home = saved("HOME"), xdg = saved("XDG_DATA_HOME"), cfg = saved("XDG_CONFIG_HOME"),
             tmpdir = saved("TMPDIR");
  const std::string tmp = scratch("tmpdir");
  fs::create_directories(tmp);
  ::setenv("XDG_DATA_HOME", "/x/data", 1);
  ::setenv("XDG_CONFIG_HOME", "relative/is/ignored", 1);
  ::setenv("HOME", "/home/someone", 1);
  CHECK(user_dir(UserDir::data) == "/x/data/poslab");
  CHECK(user_dir(UserDir::config) == "/home/someone/.config/poslab");
  ::unsetenv("XDG_DATA_HOME");
  ::unsetenv("XDG_CONFIG_HOME");
  ::unsetenv("HOME");
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const std::string mine = tmp + "/poslab-" + std::to_string(::geteuid());
  CHECK(user_dir(UserDir::data) == mine + "/data");
  CHECK(user_dir(UserDir::config) == mine + "/config");
  struct stat st {};
  REQUIRE(::lstat(mine.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK((st.st_mode & 0777) == 0700);
  // Open to others (as if another user had made it first for us): refused, named.
  ::chmod(mine.c_str(), 0777);
  CHECK_THROWS_WITH(user_dir(UserDir::data), Catch::StartsWith(mine + ": is not a private folder"));
  fs::remove(mine);
  fs::create_symlink(tmp, mine);  // a link planted at our name
  CHECK_THROWS_WITH(user_dir(UserDir::data), Catch::Contains("is not a private folder"));
  fs::remove(mine);
  const auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v)
      ::setenv(name, v->c_str(), 1);
    else
      ::unsetenv(name);
  };
  restore("HOME", home);
  restore("XDG_DATA_HOME", xdg);
  restore("XDG_CONFIG_HOME", cfg);
  restore("TMPDIR", tmpdir);
}
