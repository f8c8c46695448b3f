// Issue 36: a TOML file nested thousands of levels deep (a 50,000-segment dotted key) is
// refused by a scan before toml++ parses it (toml++ recurses per level and overflowed the
// stack), for every TOML PosLab reads: the lessons catalog, quizzes, the lessons' ui.toml
// and the interface texts. The scan counts what toml++ nests and ignores strings/comments.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/i18n/ui_strings.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/toml_depth.hpp"

namespace fs = std::filesystem;
using poslab::io::kTomlMaxDepth;
using poslab::io::toml_nesting_depth;

namespace {

std::string deep_dotted_key(int levels) {
  std::string key = "k";
  for (int i = 1; i < levels; ++i) key += ".k";
  return key + " = \"x\"\n";
}

struct TomlScratch {
  fs::path dir = fs::temp_directory_path() / ("poslab_toml_depth_" + std::to_string(::getpid()));
  TomlScratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TomlScratch() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
  }
};

}  // namespace

TEST_CASE("toml_nesting_depth counts headers, dotted keys, inline tables and arrays") {
  CHECK(toml_nesting_depth("").depth == 0);
  CHECK(toml_nesting_depth("a = 1\n").depth == 1);
  CHECK(toml_nesting_depth("a.b.c = 1.5\n").depth == 3);  // a float's dot is no key
  CHECK(toml_nesting_depth("x = [1.5, 2.5, 3.5, 4.5]\n").depth == 2);
  CHECK(toml_nesting_depth("[x.y]\nz = {a = [1]}\n").depth == 5);  // x y z a [
  CHECK(toml_nesting_depth("[[l]]\nt.en = \"a\"\n").depth == 4);   // [[ ]] is an array too
  CHECK(toml_nesting_depth("a = \"[[[{{{.b.c\"\n").depth == 1);    // inside a string
  CHECK(toml_nesting_depth("a = 'x.y.z[[['  # [[[.a.b.c\n").depth == 1);
  CHECK(toml_nesting_depth("a = \"\"\"\n[[[\n.b.c\n\"\"\"\nb.c = 1\n").depth == 2);
  CHECK(toml_nesting_depth("\"a.b.c\" = 1\n").depth == 1);  // a quoted key is one segment
  // Stops counting past the limit, and says where.
  const auto deep = toml_nesting_depth("a = 1\n" + std::string(100000, '.') + " = 1\n", 8);
  CHECK(deep.depth == 9);
  CHECK(deep.line == 2);
  CHECK(toml_nesting_depth("a = " + std::string(100000, '['), 8).depth == 9);
  std::string inline_tables = "a = ";
  for (int i = 0; i < 50000; ++i) inline_tables += "{b = ";
  CHECK(toml_nesting_depth(inline_tables, 8).depth == 9);
}

TEST_CASE("every TOML file PosLab ships is well within the nesting limit") {
  const fs::path lessons = POSLAB_TEST_LESSONS_DIR;
  int files = 0;
  for (const fs::path& root : {lessons, lessons.parent_path() / "assets" / "i18n"})
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().extension() != ".toml") continue;
      const std::string text = poslab::read_file(e.path().string());
      INFO(e.path());
      CHECK(toml_nesting_depth(text).depth <= kTomlMaxDepth / 2);
      ++files;
    }
  CHECK(files > 20);
}

TEST_CASE("a 50,000-level dotted key is refused before parsing, naming the file") {
  const std::string deep = deep_dotted_key(50000);  // ~100 KB, as in the issue
  TomlScratch t;
  SECTION("a quiz") {
    std::vector<poslab::io::LessonProblem> problems;
    (void)poslab::io::parse_quiz(deep, "lessons/x/quiz.toml", problems);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0].text(),
               Catch::StartsWith("lessons/x/quiz.toml: line 1: nested deeper") &&
                   Catch::Contains("flatten the keys"));
  }
  SECTION("the lessons catalog") {
    t.write("catalog.toml", "format = 1\n" + deep);
    CHECK_THROWS_WITH(poslab::io::load_catalog(t.dir.string()),
                      Catch::Contains("catalog.toml: line 2: nested deeper than"));
    CHECK(poslab::io::load_lessons(t.dir.string()).catalog_problem.has_value());
  }
  SECTION("the lessons' ui.toml") {
    t.write("ui.toml", deep);
    CHECK_THROWS_WITH(poslab::io::load_ui_text(t.dir.string()), Catch::Contains("ui.toml"));
  }
  SECTION("an interface text file, strict and lenient") {
    t.write("en/shell.toml", "a = \"A\"\n");
    t.write("en/zz_deep.toml", deep);
    CHECK_THROWS_WITH(poslab::io::UiStrings::load(t.dir.string(), "en"),
                      Catch::Contains("zz_deep.toml: line 1: nested deeper"));
    std::vector<std::string> problems;
    const auto s = poslab::io::UiStrings::load_lenient(t.dir.string(), "en", problems);
    CHECK(s.get("a") == "A");  // the other files still load
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::Contains("zz_deep.toml"));
  }
  SECTION("just past the limit, and at it") {
    std::vector<poslab::io::LessonProblem> problems;
    (void)poslab::io::parse_quiz(deep_dotted_key(kTomlMaxDepth + 1), "q.toml", problems);
    REQUIRE(!problems.empty());
    CHECK_THAT(problems[0].message, Catch::Contains("nested deeper"));
    problems.clear();
    (void)poslab::io::parse_quiz(deep_dotted_key(kTomlMaxDepth), "q.toml", problems);
    for (const auto& p : problems) CHECK_THAT(p.message, !Catch::Contains("nested deeper"));
  }
}
