// Reading the lessons folder: lessons/catalog.toml lists the lessons in order; each
// lesson folder holds lesson.en.md, lesson.zh.md and quiz.toml. Every problem found is
// reported with file, line and message; a broken lesson is marked broken and the others
// load normally. Nothing here is compiled into the program: the files are read at run time.
//
// quiz.toml (one [[question]] table per question; every text has .en and .zh):
//   [[question]]
//   id = "q1"                  # unique in the lesson
//   kind = "single"            # single | multiple | numeric | predict | open | spot_error
//   prompt.en = "..."          prompt.zh = "..."
//   [[question.option]]        # choice kinds: text, correct, explain
//   generator = "rope_angle"   # numeric: prompt uses {param} placeholders; unit, explain
//   preset = "rope?dim=8"      # predict: lab preset; reveal_preset, reveal.en/.zh,
//                              #   answered_by.en/.zh (lesson words that answer it); the
//                              #   lesson text asks it in a ```predict callout
//   reference.en = "..."       # open: reference answer; checklist = [{en, zh}, ...]
//   claim.en = "..."           # spot_error: the quoted claim
//   [[checklist]]              # the lesson's completion checklist: en, zh
//   [[pretest]]                # a question of any lesson asked here first: lesson, question
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/quiz/quiz.hpp"
#include "io/lessons/markdown.hpp"

namespace poslab::io {

struct LessonProblem {
  std::string file;          // path of the file at fault
  int line = 0;              // 1-based; 0 when the problem concerns the whole file
  std::string message;       // what is wrong and what to do
  std::string text() const;  // "file:line: message"
};

struct LessonEntry {
  std::string id;     // folder name under lessons/, e.g. "03-rope"
  LocalText title;    // shown in the catalog and above the lesson
  LocalText summary;  // one sentence for the catalog
  int line = 0;       // line of its [[lesson]] table in catalog.toml
};

struct Lesson {
  LessonEntry entry;
  std::string folder;                   // absolute or relative path of the lesson folder
  MdDocument text_en, text_zh;          // lesson.en.md, lesson.zh.md
  Quiz quiz;                            // quiz.toml
  std::vector<LessonProblem> problems;  // empty when the lesson is fine
  bool broken() const { return !problems.empty(); }
  const MdDocument& text(Language lang) const { return lang == Language::zh ? text_zh : text_en; }
  const Question* find_question(const std::string& id) const;
  // True when a Predict callout of the lesson text asks question `id` (the quiz tab then
  // leaves it to the text).
  bool predicted_in_text(const std::string& id) const;
};

struct LessonLibrary {
  std::string dir;                               // the lessons folder
  std::vector<Lesson> lessons;                   // catalog order
  std::optional<LessonProblem> catalog_problem;  // set when catalog.toml itself is unusable
  const Lesson* find(const std::string& id) const;
};

// Labs that lessons may link to before this build has them (a lab written in parallel,
// such as the dream lab "dreams"). Their links are checked by the lab's preset codec once
// it is registered in core/labs.cpp, skipped before; clicking one without the lab's panel
// shows the app's banner.
const std::vector<std::string>& lesson_pending_labs();
// True when `preset` names a pending lab that core/labs.cpp does not know yet (then even
// its codec cannot check it).
bool lesson_link_pending(const std::string& preset);
// True when `preset` names a pending lab at all. `poslab-cli quiz presets` leaves these
// out, because the app may know the lab's codec before it has the lab's panel; remove the
// lab from lesson_pending_labs() once its panel is registered.
bool lesson_link_to_pending_lab(const std::string& preset);

inline constexpr int kCatalogFormat = 1;  // `format` key of catalog.toml this build reads

// Where a learner's progress (and the last chosen language) lives: $XDG_DATA_HOME/poslab,
// else ~/.local/share/poslab (the app uses the same folder; io/files/user_dirs.hpp has
// the rule, also for no HOME at all). Not created here; FileError as user_dir().
std::string default_data_dir();

// Throws FileError ("<dir>/catalog.toml: line 3: ...") when the catalog cannot be used.
std::vector<LessonEntry> load_catalog(const std::string& dir);
// Loads one lesson; problems are collected in the result, never thrown.
Lesson load_lesson(const std::string& dir, const LessonEntry& entry);
// The catalog and every lesson; never throws on content.
LessonLibrary load_lessons(const std::string& dir);

// Parses quiz text (the contents of a quiz.toml named `file`), appending problems.
Quiz parse_quiz(const std::string& toml_text, const std::string& file,
                std::vector<LessonProblem>& problems);

// The panel's own words in both languages, from lessons/ui.toml ([text] key = {en, zh}),
// kept with the lessons so the Chinese glyphs are found where the font atlas looks.
struct UiText {
  std::map<std::string, LocalText> entries;
  // The text for `key`, or the key itself when it is missing (visible, never a crash).
  std::string get(const std::string& key, Language lang) const;
};
// Throws FileError with the line when ui.toml is malformed.
UiText load_ui_text(const std::string& dir);

}  // namespace poslab::io
