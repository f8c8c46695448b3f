// Lesson files as the loader sees them: Markdown becomes the block/span structure the
// panel draws, and malformed catalogs, quizzes and lesson texts give the documented
// errors (file, line, message) while the other lessons keep working.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"
#include "io/lessons/lesson_files.hpp"

using namespace poslab;
using namespace poslab::io;
namespace fs = std::filesystem;

namespace {

// A scratch lessons folder, removed at the end of the test.
struct TempLessons {
  fs::path dir;
  TempLessons() {
    dir = fs::temp_directory_path() /
          ("poslab_lessons_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempLessons() { fs::remove_all(dir); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  }
  std::string str() const { return dir.string(); }
};

const char* kCatalog = R"(format = 1
[[lesson]]
id = "good"
title.en = "Good"
title.zh = "好"
summary.en = "s"
summary.zh = "s"

[[lesson]]
id = "bad"
title.en = "Bad"
title.zh = "坏"
summary.en = "s"
summary.zh = "s"
)";

const char* kGoodQuiz = R"([[question]]
id = "q1"
kind = "single"
prompt.en = "p"
prompt.zh = "p"
[[question.option]]
text.en = "a"
text.zh = "a"
correct = true
explain.en = "e"
explain.zh = "e"
[[question.option]]
text.en = "b"
text.zh = "b"
explain.en = "e"
explain.zh = "e"
)";

void write_lesson(const TempLessons& t, const std::string& id, const std::string& quiz) {
  t.write(id + "/lesson.en.md", "# Title\n\nText with [a lab](lab:rope?dim=8).\n");
  t.write(id + "/lesson.zh.md", "# 标题\n\n正文，[实验](lab:rope?dim=8)。\n");
  t.write(id + "/quiz.toml", quiz);
}

// The one problem of lesson `id`, which must exist.
LessonProblem only_problem(const LessonLibrary& lib, const std::string& id) {
  const Lesson* l = lib.find(id);
  REQUIRE(l != nullptr);
  INFO("problems of " << id << ":");
  for (const auto& p : l->problems) INFO(p.text());
  REQUIRE(l->problems.size() >= 1);
  return l->problems.front();
}

}  // namespace

TEST_CASE("Markdown becomes headings, lists, code, emphasis, links and tables") {
  const MdDocument doc = parse_markdown(
      "# Big\n\nSome *em* and **strong** and `code` and [lab](lab:rope?dim=8&base=500000) &amp; "
      "more.\n\n"
      "## Smaller\n\n- one\n- two\n  1. nested\n\n```python\nx = 1\n```\n\n> quoted\n\n---\n\n"
      "| a | b |\n|---|---|\n| 1 | 2 |\n");
  std::vector<MdBlockKind> kinds;
  for (const auto& b : doc.blocks) kinds.push_back(b.kind);
  using K = MdBlockKind;
  REQUIRE(kinds == std::vector<K>{K::heading, K::paragraph, K::heading, K::list_item, K::list_item,
                                  K::list_item, K::code, K::paragraph, K::rule, K::table_row,
                                  K::table_row});
  CHECK(doc.blocks[0].level == 1);
  CHECK(doc.blocks[2].level == 2);
  const auto& spans = doc.blocks[1].spans;
  bool em = false, strong = false, code = false, link = false;
  for (const auto& s : spans) {
    em |= s.emphasis && s.text == "em";
    strong |= s.strong && s.text == "strong";
    code |= s.code && s.text == "code";
    link |= s.link == "lab:rope?dim=8&base=500000" && s.text == "lab";
  }
  CHECK(em);
  CHECK(strong);
  CHECK(code);
  CHECK(link);
  CHECK(markdown_plain_text(doc.blocks[1]).find("& more") != std::string::npos);
  CHECK(doc.blocks[3].indent == 1);
  CHECK(doc.blocks[5].indent == 2);
  CHECK(doc.blocks[5].ordered);
  CHECK(doc.blocks[5].number == 1);
  CHECK(doc.blocks[6].code == "x = 1\n");
  CHECK(doc.blocks[6].lang == "python");
  CHECK(doc.blocks[7].quote == 1);
  CHECK(doc.blocks[9].header);
  CHECK(doc.blocks[9].cells.size() == 2);
  CHECK(markdown_plain_text(doc.blocks[10]) == "1 | 2");
  CHECK(markdown_lab_links(doc) == std::vector<std::string>{"rope?dim=8&base=500000"});
}

TEST_CASE("Markdown that makes md4c leave a link it never entered still parses") {
  // Found by fuzz/fuzz_markdown.cpp: md4c 0.4.8 reports "leave link" after this image's alt
  // text without an "enter link" (popping an empty stack was undefined behaviour). The
  // paragraph after it must keep its own link and emphasis.
  const std::string broken("#\0![axt\xC0:al](b=;\xA2[)$a!xt](lab)\xA2![p\xAD", 35);
  const MdDocument doc = parse_markdown(broken + "\n\nthen [go](lab:rope?dim=8) and *em*\n");
  REQUIRE(doc.blocks.size() == 2);
  for (const MdSpan& s : doc.blocks[0].spans) CHECK(s.link.empty());
  bool link = false, em = false;
  for (const MdSpan& s : doc.blocks[1].spans) {
    link |= s.link == "lab:rope?dim=8" && s.text == "go" && !s.emphasis;
    em |= s.emphasis && s.text == "em" && s.link.empty();
  }
  CHECK(link);
  CHECK(em);
  CHECK(markdown_lab_links(doc) == std::vector<std::string>{"rope?dim=8"});
}

TEST_CASE("a broken quiz marks only its lesson broken, with file and line") {
  TempLessons t;
  t.write("catalog.toml", kCatalog);
  write_lesson(t, "good", kGoodQuiz);

  SECTION("TOML syntax error") {
    write_lesson(t, "bad", "[[question]]\nid = \"q1\"\nkind = single\n");
    const LessonLibrary lib = load_lessons(t.str());
    CHECK_FALSE(lib.find("good")->broken());
    const LessonProblem p = only_problem(lib, "bad");
    CHECK(p.file == (t.dir / "bad" / "quiz.toml").string());
    CHECK(p.line == 3);
    CHECK_THAT(p.message, Catch::Contains("TOML syntax error"));
    CHECK_THAT(p.text(), Catch::StartsWith(p.file + ":3: "));
  }
  SECTION("missing Chinese text") {
    std::string quiz = kGoodQuiz;
    quiz.replace(quiz.find("prompt.zh = \"p\"\n"), 16, "");
    write_lesson(t, "bad", quiz);
    const LessonProblem p = only_problem(load_lessons(t.str()), "bad");
    CHECK(p.line == 4);  // where prompt.en is: the prompt's own line
    CHECK_THAT(p.message, Catch::Contains("prompt.zh") && Catch::Contains("English and Chinese"));
  }
  SECTION("no correct option") {
    std::string quiz = kGoodQuiz;
    quiz.replace(quiz.find("correct = true\n"), 15, "");
    write_lesson(t, "bad", quiz);
    CHECK_THAT(only_problem(load_lessons(t.str()), "bad").message,
               Catch::Contains("exactly one option"));
  }
  SECTION("unknown kind, key, generator and preset") {
    write_lesson(t, "bad", std::string(kGoodQuiz) + R"(
[[question]]
id = "q2"
kind = "essay"
prompt.en = "p"
prompt.zh = "p"

[[question]]
id = "q3"
kind = "numeric"
generator = "no_such"
promt.en = "typo"
prompt.en = "p"
prompt.zh = "p"
explain.en = "e"
explain.zh = "e"

[[question]]
id = "q4"
kind = "predict"
prompt.en = "p"
prompt.zh = "p"
preset = "rope?dim=3"
reveal.en = "r"
reveal.zh = "r"
[[question.option]]
text.en = "a"
text.zh = "a"
correct = true
explain.en = "e"
explain.zh = "e"
[[question.option]]
text.en = "b"
text.zh = "b"
explain.en = "e"
explain.zh = "e"

[[question]]
id = "q1"
kind = "open"
prompt.en = "p"
prompt.zh = "p"
reference.en = "r"
reference.zh = "r"
checklist = [{ en = "c", zh = "c" }]
)");
    const LessonLibrary lib = load_lessons(t.str());
    const Lesson& l = *lib.find("bad");
    std::string all;
    for (const auto& p : l.problems) all += p.text() + "\n";
    INFO(all);
    CHECK_THAT(all, Catch::Contains(":20: ") && Catch::Contains("question kind \"essay\""));
    CHECK_THAT(all, Catch::Contains("unknown key \"promt\""));
    CHECK_THAT(all, Catch::Contains("numeric generator \"no_such\""));
    CHECK_THAT(all, Catch::Contains("preset \"rope?dim=3\" does not load"));
    CHECK_THAT(all, Catch::Contains("question id \"q1\" appears twice"));
  }
  SECTION("bad lab link in the lesson text, missing Chinese text file") {
    write_lesson(t, "bad", kGoodQuiz);
    t.write("bad/lesson.en.md", "# T\n\nline two\n\n[go](lab:nolab?x=1)\n");
    fs::remove(t.dir / "bad" / "lesson.zh.md");
    const LessonLibrary lib = load_lessons(t.str());
    const Lesson& l = *lib.find("bad");
    REQUIRE(l.problems.size() == 2);
    CHECK(l.problems[0].line == 5);
    CHECK_THAT(l.problems[0].message, Catch::Contains("unknown lab \"nolab\""));
    CHECK_THAT(l.problems[1].text(), Catch::Contains("lesson.zh.md") && Catch::Contains("missing"));
  }
  SECTION("the two languages open different labs") {
    write_lesson(t, "bad", kGoodQuiz);
    t.write("bad/lesson.zh.md", "# 标题\n\n[实验](lab:rope?dim=16)\n");
    CHECK_THAT(only_problem(load_lessons(t.str()), "bad").message,
               Catch::Contains("lab links differ"));
  }
  SECTION("missing folder") {
    const LessonProblem p = only_problem(load_lessons(t.str()), "bad");
    CHECK(p.file == (t.dir / "catalog.toml").string());
    CHECK(p.line == 9);
    CHECK_THAT(p.message, Catch::Contains("does not exist"));
  }
}

TEST_CASE("an unusable catalog is one error naming the file and line") {
  TempLessons t;
  SECTION("missing") {
    CHECK_THROWS_WITH(load_catalog(t.str()), Catch::Contains("catalog.toml: not found"));
    const LessonLibrary lib = load_lessons(t.str());
    REQUIRE(lib.catalog_problem.has_value());
    CHECK(lib.lessons.empty());
  }
  SECTION("syntax error") {
    t.write("catalog.toml", "format = 1\n[[lesson]\n");
    CHECK_THROWS_WITH(load_catalog(t.str()),
                      Catch::Contains("catalog.toml: line 2: TOML syntax error"));
  }
  SECTION("newer format") {
    t.write("catalog.toml", "format = 2\n");
    CHECK_THROWS_WITH(load_catalog(t.str()), Catch::Contains("format 2 is not supported"));
  }
  SECTION("duplicate id") {
    std::string cat = kCatalog;
    cat.replace(cat.find("id = \"bad\""), 10, "id = \"good\"");
    t.write("catalog.toml", cat);
    CHECK_THROWS_WITH(load_catalog(t.str()),
                      Catch::Contains("line 10") && Catch::Contains("appears twice"));
  }
}

TEST_CASE("ui text falls back to the key and rejects a malformed file") {
  TempLessons t;
  t.write("ui.toml", "score = { en = \"Score\", zh = \"得分\" }\n");
  const UiText ui = load_ui_text(t.str());
  CHECK(ui.get("score", Language::zh) == "得分");
  CHECK(ui.get("missing_key", Language::en) == "missing_key");
  t.write("ui.toml", "score = { en = \"Score\" }\n");
  CHECK_THROWS_WITH(load_ui_text(t.str()),
                    Catch::Contains("line 1") && Catch::Contains("score.zh"));
}
