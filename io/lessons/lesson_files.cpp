// Loading and checking lesson files with toml++ (catalog, quizzes, UI strings) and md4c
// (lesson text, via markdown.cpp). Every check that the content lint relies on lives here,
// so the app, the command line and the tests judge a lesson the same way.
// Sections: TOML reading (TableReader, presets, one question) | pending labs and lookups |
// folders | catalog | quiz | lesson and library | UI text.
#include "io/lessons/lesson_files.hpp"

#include <toml++/toml.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/labs.hpp"
#include "core/quiz/numeric.hpp"
#include "io/files/atomic_file.hpp"
#include "io/files/user_dirs.hpp"
#include "io/lessons/toml_depth.hpp"

namespace poslab::io {
namespace fs = std::filesystem;

// ---- TOML reading -----------------------------------------------------------------------

namespace {

int line_of(const toml::node& n) {
  return static_cast<int>(n.source().begin.line);
}

// Reads typed fields of one TOML table, recording problems instead of throwing.
class TableReader {
 public:
  TableReader(const toml::table& t, std::string file, std::string what, int line,
              std::vector<LessonProblem>& problems)
      : t_(t), file_(std::move(file)), what_(std::move(what)), line_(line), problems_(problems) {}

  void problem(int line, const std::string& message) {
    problems_.push_back({file_, line, message});
  }

  bool has(const std::string& key) const { return t_.contains(key); }
  int line_at(const std::string& key) const {
    const toml::node* n = t_.get(key);
    return n && line_of(*n) > 0 ? line_of(*n) : line_;
  }

  std::string string(const std::string& key, bool required) {
    const toml::node* n = t_.get(key);
    if (n == nullptr) {
      if (required) problem(line_, what_ + ": \"" + key + "\" is missing");
      return {};
    }
    if (const auto* s = n->as_string()) return s->get();
    problem(line_of(*n), what_ + ": \"" + key + "\" must be a string");
    return {};
  }

  bool boolean(const std::string& key) {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return false;
    if (const auto* b = n->as_boolean()) return b->get();
    problem(line_of(*n), what_ + ": \"" + key + "\" must be true or false");
    return false;
  }

  // key.en and key.zh (dotted keys or an inline table { en = "...", zh = "..." }).
  LocalText local(const std::string& key, bool required) {
    LocalText out;
    const toml::node* n = t_.get(key);
    if (n == nullptr) {
      if (required)
        problem(line_, what_ + ": \"" + key + ".en\" and \"" + key + ".zh\" are missing");
      return out;
    }
    const toml::table* lt = n->as_table();
    if (lt == nullptr) {
      problem(line_of(*n),
              what_ + ": \"" + key + "\" must hold two texts, " + key + ".en and " + key + ".zh");
      return out;
    }
    read_local(*lt, key, line_at(key), out);
    return out;
  }

  void read_local(const toml::table& lt, const std::string& key, int line, LocalText& out) {
    for (auto&& [k, v] : lt) {
      const std::string name(k.str());
      if (name != "en" && name != "zh")
        problem(line_of(v) > 0 ? line_of(v) : line,
                what_ + ": \"" + key + "." + name + "\" is not a language (use en and zh)");
    }
    for (const char* lang : {"en", "zh"}) {
      const toml::node* v = lt.get(lang);
      std::string& target = std::string(lang) == "en" ? out.en : out.zh;
      if (v == nullptr) {
        problem(line, what_ + ": \"" + key + "." + lang +
                          "\" is missing (every text needs English and Chinese)");
      } else if (const auto* s = v->as_string()) {
        target = s->get();
        if (target.empty()) problem(line_of(*v), what_ + ": \"" + key + "." + lang + "\" is empty");
      } else {
        problem(line_of(*v), what_ + ": \"" + key + "." + lang + "\" must be a string");
      }
    }
  }

  // A list of {en, zh} tables (array of inline tables or [[key]] tables).
  std::vector<LocalText> local_list(const std::string& key, bool required) {
    std::vector<LocalText> out;
    const toml::node* n = t_.get(key);
    if (n == nullptr) {
      if (required)
        problem(line_, what_ + ": \"" + key + "\" is missing (a list of {en, zh} items)");
      return out;
    }
    const toml::array* arr = n->as_array();
    if (arr == nullptr) {
      problem(line_of(*n),
              what_ + ": \"" + key + "\" must be a list of {en = \"...\", zh = \"...\"} items");
      return out;
    }
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& item = *arr->get(i);
      const std::string item_key = key + "[" + std::to_string(i + 1) + "]";
      const int item_line = line_of(item) > 0 ? line_of(item) : line_at(key);
      if (const toml::table* lt = item.as_table()) {
        LocalText text;
        read_local(*lt, item_key, item_line, text);
        out.push_back(std::move(text));
      } else {
        problem(item_line, what_ + ": \"" + item_key + "\" must be {en = \"...\", zh = \"...\"}");
      }
    }
    if (required && out.empty()) problem(line_at(key), what_ + ": \"" + key + "\" is empty");
    return out;
  }

  void only_keys(const std::vector<std::string>& allowed) {
    for (auto&& [k, v] : t_) {
      const std::string name(k.str());
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
        problem(line_of(v) > 0 ? line_of(v) : line_,
                what_ + ": unknown key \"" + name + "\" (known: " + join(allowed) + ")");
    }
  }

 private:
  const toml::table& t_;
  std::string file_;
  std::string what_;
  int line_;
  std::vector<LessonProblem>& problems_;
};

std::optional<toml::table> parse_toml(const std::string& text, const std::string& file,
                                      std::vector<LessonProblem>& problems) {
  // toml++ recurses per level: a file nested thousands deep would overflow the stack.
  if (std::string why = toml_depth_problem(text); !why.empty()) {
    problems.push_back({file, 0, std::move(why)});
    return std::nullopt;
  }
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    problems.push_back({file, static_cast<int>(e.source().begin.line),
                        "TOML syntax error: " + std::string(e.description())});
    return std::nullopt;
  }
}

void check_preset(const std::string& preset, const std::string& what, const std::string& file,
                  int line, std::vector<LessonProblem>& problems) {
  if (lesson_link_pending(preset)) return;  // checked once the lab exists
  try {
    lab_preset_canonical(preset);
  } catch (const Error& e) {
    problems.push_back(
        {file, line, what + ": preset \"" + preset + "\" does not load: " + e.what()});
  }
}

Question parse_question(const toml::table& t, int index, const std::string& file,
                        std::vector<LessonProblem>& problems) {
  Question q;
  q.line = line_of(t);
  const toml::node* id_node = t.get("id");
  const std::string label = id_node && id_node->as_string()
                                ? "question \"" + id_node->as_string()->get() + "\""
                                : "question " + std::to_string(index + 1);
  TableReader r(t, file, label, q.line, problems);
  q.id = r.string("id", true);
  r.only_keys({"id", "kind", "prompt", "option", "explain", "generator", "unit", "preset",
               "reveal_preset", "reveal", "answered_by", "claim", "reference", "checklist"});
  const std::string kind = r.string("kind", true);
  try {
    if (!kind.empty()) q.kind = quiz_kind_from_name(kind);
  } catch (const InputError& e) {
    r.problem(r.line_at("kind"), e.what());
    return q;
  }
  q.prompt = r.local("prompt", true);
  q.explain = r.local("explain", q.kind == QuestionKind::numeric);

  auto forbid = [&](const std::vector<std::string>& keys) {
    for (const auto& k : keys)
      if (r.has(k))
        r.problem(r.line_at(k), "\"" + k + "\" does not belong to a " + kind + " question");
  };

  if (quiz_is_choice(q.kind)) {
    const toml::node* n = t.get("option");
    const toml::array* arr = n ? n->as_array() : nullptr;
    if (arr == nullptr) {
      r.problem(n ? line_of(*n) : q.line,
                "a " + kind + " question needs [[question.option]] tables");
    } else {
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::table* ot = arr->get(i)->as_table();
        const std::string what =
            "option " + quiz_option_letter(static_cast<int>(i)) + " of question \"" + q.id + "\"";
        if (ot == nullptr) {
          r.problem(line_of(*arr->get(i)), what + " must be a table");
          continue;
        }
        TableReader orr(*ot, file, what, line_of(*ot), problems);
        orr.only_keys({"text", "correct", "explain"});
        ChoiceOption o;
        o.text = orr.local("text", true);
        o.correct = orr.boolean("correct");
        o.explain = orr.local("explain", true);
        q.options.push_back(std::move(o));
      }
      const size_t correct = quiz_correct_options(q).size();
      if (q.options.size() < 2)
        r.problem(q.line, "a " + kind + " question needs at least 2 options");
      if (q.kind == QuestionKind::multiple ? correct < 1 : correct != 1)
        r.problem(q.line, "a " + kind + " question needs " +
                              (q.kind == QuestionKind::multiple ? "at least one option"
                                                                : "exactly one option") +
                              " with correct = true, found " + std::to_string(correct));
    }
  } else {
    forbid({"option"});
  }

  if (q.kind == QuestionKind::numeric) {
    q.generator = r.string("generator", true);
    q.unit = r.local("unit", false);
    if (!q.generator.empty()) {
      try {
        const NumericQuestion nq = quiz_generate(q.generator, 0);
        // Prompts may show parameters only (steps would give the answer away).
        for (const auto* text : {&q.prompt.en, &q.prompt.zh}) quiz_fill_template(*text, nq);
        for (const auto* text : {&q.explain.en, &q.explain.zh}) quiz_fill_template(*text, nq, true);
      } catch (const InputError& e) {
        r.problem(r.line_at("generator"), e.what());
      }
    }
  } else {
    forbid({"generator", "unit"});
  }

  if (q.kind == QuestionKind::predict) {
    q.preset = r.string("preset", true);
    q.reveal_preset = r.string("reveal_preset", false);
    q.reveal = r.local("reveal", true);
    q.answered_by = r.local("answered_by", true);
    if (!q.preset.empty())
      check_preset(q.preset, "question \"" + q.id + "\"", file, r.line_at("preset"), problems);
    if (!q.reveal_preset.empty())
      check_preset(q.reveal_preset, "question \"" + q.id + "\"", file, r.line_at("reveal_preset"),
                   problems);
  } else {
    forbid({"preset", "reveal_preset", "reveal", "answered_by"});
  }

  if (q.kind == QuestionKind::open) {
    q.reference = r.local("reference", true);
    q.checklist = r.local_list("checklist", true);
  } else {
    forbid({"reference", "checklist"});
  }

  if (q.kind == QuestionKind::spot_error)
    q.claim = r.local("claim", true);
  else
    forbid({"claim"});
  return q;
}

// Line (1-based) of the first occurrence of `needle` in `text`, 0 if absent.
int line_of_text(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

bool valid_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

}  // namespace

// ---- Pending labs and lookups -----------------------------------------------------------

const std::vector<std::string>& lesson_pending_labs() {
  static const std::vector<std::string> labs{};  // every lab lessons link to is registered
  return labs;
}

bool lesson_link_to_pending_lab(const std::string& preset) {
  const std::string lab = preset.substr(0, preset.find('?'));
  const auto& pending = lesson_pending_labs();
  return std::find(pending.begin(), pending.end(), lab) != pending.end();
}

bool lesson_link_pending(const std::string& preset) {
  if (!lesson_link_to_pending_lab(preset)) return false;
  const std::string lab = preset.substr(0, preset.find('?'));
  const auto known = lab_names();
  return std::find(known.begin(), known.end(), lab) == known.end();
}

std::string LessonProblem::text() const {
  return line > 0 ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
}

bool Lesson::predicted_in_text(const std::string& id) const {
  for (const auto& c : markdown_predict_callouts(text_en))
    if (c.id == id) return true;
  return false;
}

const Question* Lesson::find_question(const std::string& id) const {
  for (const auto& q : quiz.questions)
    if (q.id == id) return &q;
  return nullptr;
}

const Lesson* LessonLibrary::find(const std::string& id) const {
  for (const auto& l : lessons)
    if (l.entry.id == id) return &l;
  return nullptr;
}

// ---- Folders ----------------------------------------------------------------------------

std::string default_data_dir() {
  return user_dir(UserDir::data);
}

// ---- Catalog ----------------------------------------------------------------------------

std::vector<LessonEntry> load_catalog(const std::string& dir) {
  const std::string file = (fs::path(dir) / "catalog.toml").string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw FileError(file,
                    "not found (reinstall PosLab, or set POSLAB_DATA_DIR to the folder holding "
                    "lessons/ and assets/)");
  std::vector<LessonProblem> problems;
  std::vector<LessonEntry> entries;
  auto fail_on_problems = [&] {
    if (problems.empty()) return;
    const LessonProblem& p = problems.front();
    throw FileError(
        file, (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.message);
  };
  const auto table = parse_toml(read_file(file), file, problems);
  fail_on_problems();
  TableReader top(*table, file, "catalog", 1, problems);
  top.only_keys({"format", "lesson"});
  const toml::node* format = table->get("format");
  if (format == nullptr || !format->as_integer())
    problems.push_back({file, 1, "\"format = " + std::to_string(kCatalogFormat) + "\" is missing"});
  else if (format->as_integer()->get() != kCatalogFormat)
    problems.push_back({file, line_of(*format),
                        "format " + std::to_string(format->as_integer()->get()) +
                            " is not supported (this build reads " +
                            std::to_string(kCatalogFormat) + "): update PosLab or the lessons"});
  const toml::node* list = table->get("lesson");
  const toml::array* arr = list ? list->as_array() : nullptr;
  if (arr == nullptr) problems.push_back({file, 1, "no [[lesson]] tables"});
  fail_on_problems();
  std::set<std::string> seen;
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::table* t = arr->get(i)->as_table();
    if (t == nullptr) {
      problems.push_back(
          {file, line_of(*arr->get(i)), "lesson " + std::to_string(i + 1) + " must be a table"});
      break;
    }
    LessonEntry e;
    e.line = line_of(*t);
    TableReader r(*t, file, "lesson " + std::to_string(i + 1), e.line, problems);
    r.only_keys({"id", "title", "summary"});
    e.id = r.string("id", true);
    e.title = r.local("title", true);
    e.summary = r.local("summary", true);
    if (!e.id.empty() && !valid_id(e.id))
      r.problem(r.line_at("id"),
                "lesson id \"" + e.id + "\" may hold only a-z, 0-9, - and _ (it names a folder)");
    if (!seen.insert(e.id).second)
      r.problem(r.line_at("id"), "lesson id \"" + e.id + "\" appears twice");
    entries.push_back(std::move(e));
  }
  fail_on_problems();
  return entries;
}

// ---- Quiz -------------------------------------------------------------------------------

Quiz parse_quiz(const std::string& toml_text, const std::string& file,
                std::vector<LessonProblem>& problems) {
  Quiz quiz;
  const auto table = parse_toml(toml_text, file, problems);
  if (!table) return quiz;
  TableReader top(*table, file, "quiz", 1, problems);
  top.only_keys({"question", "checklist", "pretest"});
  const toml::node* list = table->get("question");
  const toml::array* arr = list ? list->as_array() : nullptr;
  if (arr == nullptr || arr->empty()) {
    problems.push_back({file, list ? line_of(*list) : 1,
                        "no [[question]] tables: a lesson needs at least one question"});
  } else {
    std::set<std::string> ids;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::table* t = arr->get(i)->as_table();
      if (t == nullptr) {
        problems.push_back({file, line_of(*arr->get(i)),
                            "question " + std::to_string(i + 1) + " must be a table"});
        continue;
      }
      Question q = parse_question(*t, static_cast<int>(i), file, problems);
      if (!q.id.empty() && !ids.insert(q.id).second)
        problems.push_back(
            {file, q.line, "question id \"" + q.id + "\" appears twice in this lesson"});
      quiz.questions.push_back(std::move(q));
    }
  }
  // [[checklist]] tables or checklist = [{en, zh}, ...]: both read the same way.
  quiz.checklist = top.local_list("checklist", false);
  // [[pretest]] lesson = "...", question = "...": checked against the library on load.
  if (const toml::node* pre = table->get("pretest")) {
    const toml::array* list_of = pre->as_array();
    if (list_of == nullptr) {
      problems.push_back({file, line_of(*pre), "pretest must be [[pretest]] tables"});
    } else {
      for (size_t i = 0; i < list_of->size(); ++i) {
        const toml::table* t = list_of->get(i)->as_table();
        if (t == nullptr) {
          problems.push_back({file, line_of(*list_of->get(i)), "a [[pretest]] must be a table"});
          continue;
        }
        TableReader r(*t, file, "pretest " + std::to_string(i + 1), line_of(*t), problems);
        r.only_keys({"lesson", "question"});
        quiz.pretest.push_back({r.string("lesson", true), r.string("question", true)});
      }
    }
  }
  return quiz;
}

// ---- Lesson and library -----------------------------------------------------------------

Lesson load_lesson(const std::string& dir, const LessonEntry& entry) {
  Lesson lesson;
  lesson.entry = entry;
  lesson.folder = (fs::path(dir) / entry.id).string();
  auto& problems = lesson.problems;
  std::error_code ec;
  if (!fs::is_directory(lesson.folder, ec)) {
    problems.push_back(
        {(fs::path(dir) / "catalog.toml").string(), entry.line,
         "lesson \"" + entry.id + "\": folder " + lesson.folder + " does not exist"});
    return lesson;
  }
  // Lesson text in both languages.
  std::string raw[2];
  std::vector<std::string> links[2];
  int headings[2] = {0, 0};
  const char* langs[2] = {"en", "zh"};
  for (int k = 0; k < 2; ++k) {
    const std::string file = lesson.folder + "/lesson." + langs[k] + ".md";
    try {
      raw[k] = read_file(file);
    } catch (const FileError&) {
      problems.push_back({file, 0, "missing: every lesson needs lesson.en.md and lesson.zh.md"});
      continue;
    }
    MdDocument& doc = k == 0 ? lesson.text_en : lesson.text_zh;
    try {
      doc = parse_markdown(raw[k]);
    } catch (const InputError& e) {
      problems.push_back({file, 0, e.what()});
      continue;
    }
    if (doc.blocks.empty()) problems.push_back({file, 0, "is empty"});
    for (const auto& b : doc.blocks) headings[k] += b.kind == MdBlockKind::heading ? 1 : 0;
    links[k] = markdown_lab_links(doc);
    for (const auto& preset : links[k])
      check_preset(preset, "lab link", file, line_of_text(raw[k], kLabLinkPrefix + preset),
                   problems);
  }
  if (!raw[0].empty() && !raw[1].empty()) {
    const std::string zh_file = lesson.folder + "/lesson.zh.md";
    if (links[0] != links[1])
      problems.push_back({zh_file, 0,
                          "lab links differ from lesson.en.md (" + std::to_string(links[1].size()) +
                              " vs " + std::to_string(links[0].size()) +
                              "): both languages must open the same presets in the same order"});
    if (headings[0] != headings[1])
      problems.push_back({zh_file, 0,
                          std::to_string(headings[1]) + " headings, lesson.en.md has " +
                              std::to_string(headings[0]) +
                              ": both languages should follow the same outline"});
  }
  // Quiz.
  const std::string quiz_file = lesson.folder + "/quiz.toml";
  try {
    lesson.quiz = parse_quiz(read_file(quiz_file), quiz_file, problems);
  } catch (const FileError&) {
    problems.push_back({quiz_file, 0, "missing: every lesson needs a quiz.toml"});
  }
  // Predict callouts: each names a predict question, the same ones in both languages.
  std::vector<std::string> callout_ids[2];
  for (int k = 0; k < 2; ++k) {
    const std::string file = lesson.folder + "/lesson." + langs[k] + ".md";
    for (const auto& c : markdown_predict_callouts(k == 0 ? lesson.text_en : lesson.text_zh)) {
      callout_ids[k].push_back(c.id);
      const Question* q = lesson.find_question(c.id);
      if (q == nullptr || q->kind != QuestionKind::predict)
        problems.push_back({file, line_of_text(raw[k], "```" + std::string(kPredictFence)),
                            "Predict callout \"" + c.id +
                                "\" names no predict question of quiz.toml (write its id)"});
    }
  }
  if (!raw[0].empty() && !raw[1].empty() && callout_ids[0] != callout_ids[1])
    problems.push_back({lesson.folder + "/lesson.zh.md", 0,
                        "Predict callouts differ from lesson.en.md: both languages must place "
                        "the same predictions in the same order"});
  return lesson;
}

LessonLibrary load_lessons(const std::string& dir) {
  LessonLibrary lib;
  lib.dir = dir;
  std::vector<LessonEntry> entries;
  try {
    entries = load_catalog(dir);
  } catch (const FileError& e) {
    const std::string what = e.what();  // "<path>: <message>"
    lib.catalog_problem =
        LessonProblem{e.path(), 0, what.substr(std::min(what.size(), e.path().size() + 2))};
    return lib;
  }
  for (const auto& e : entries) lib.lessons.push_back(load_lesson(dir, e));
  // A pre-test names questions of other lessons: each must exist.
  for (auto& l : lib.lessons)
    for (const auto& ref : l.quiz.pretest) {
      const Lesson* other = lib.find(ref.lesson);
      if (other == nullptr || other->find_question(ref.id) == nullptr)
        l.problems.push_back({l.folder + "/quiz.toml", 0,
                              "[[pretest]] names question \"" + ref.id + "\" of lesson \"" +
                                  ref.lesson + "\", which does not exist"});
    }
  return lib;
}

// ---- UI text ----------------------------------------------------------------------------

std::string UiText::get(const std::string& key, Language lang) const {
  const auto it = entries.find(key);
  return it == entries.end() ? key : it->second.in(lang);
}

UiText load_ui_text(const std::string& dir) {
  const std::string file = (fs::path(dir) / "ui.toml").string();
  std::vector<LessonProblem> problems;
  const auto table = parse_toml(read_file(file), file, problems);
  UiText ui;
  if (table) {
    for (auto&& [k, v] : *table) {
      const std::string key(k.str());
      const toml::table* lt = v.as_table();
      if (lt == nullptr) {
        problems.push_back(
            {file, line_of(v), "\"" + key + "\" must be {en = \"...\", zh = \"...\"}"});
        continue;
      }
      TableReader r(*table, file, "ui text", 1, problems);
      r.read_local(*lt, key, line_of(v), ui.entries[key]);
    }
  }
  if (!problems.empty()) {
    const LessonProblem& p = problems.front();
    throw FileError(
        file, (p.line > 0 ? "line " + std::to_string(p.line) + ": " : std::string()) + p.message);
  }
  return ui;
}

}  // namespace poslab::io
