// The lessons lab's UI state and its quiz view (app/panels/lessons_panel.cpp holds the panel:
// presets, checks, the catalog and the lesson's text). The quiz view draws each question
// (choice, numeric, open) with its feedback, and the completion checklist; grading comes
// from core/quiz, and answers are saved through io/lessons.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/image_texture.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/markdown_view.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/lm_questions.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/markdown.hpp"
#include "io/quiz/quiz_lm_io.hpp"

struct ImFont;

namespace poslab::app {

// What the learner is typing or looking at for one question (not saved; the answers are).
struct QuestionUi {
  std::vector<bool> picks;       // choice kinds: options ticked for the next check
  std::string number;            // numeric: the text typed
  bool number_bad = false;       // numeric: the text did not parse
  std::string open_text;         // open: the learner's answer being written
  bool reference_shown = false;  // open: the reference and checklist are visible
  int tries = 0;                 // choice, numeric: answers given in this attempt so far
  bool reveal_asked = false;     // choice, numeric: explanations or solution asked for
  bool initialised = false;      // filled from the saved record once
};

// The generated parameters of a numeric question, kept while its seed stays the same.
struct NumericCache {
  std::uint64_t seed = 0;
  bool valid = false;
  NumericQuestion question;
};

// The panel's whole UI state. `lab` is what presets capture.
struct LessonsUi {
  LessonsLabSettings lab;
  std::string dir;          // lessons folder
  io::LessonLibrary lib;    // catalog and every lesson (broken ones marked)
  io::UiText words;         // lessons/ui.toml
  std::string words_error;  // why ui.toml could not be read, if so
  Progress progress;
  Progress progress_base;     // as loaded or last saved: what save merges this window's
                              // changes against (another window may save meanwhile)
  std::string progress_file;  // empty until the data directory is known
  bool progress_loaded = false;
  bool headless = false;                         // checks and captures never write progress
  bool cjk = true;                               // a Chinese font is available (last frame)
  bool select_view = true;                       // bring lab.view's tab to the front next frame
  std::map<std::string, QuestionUi> questions;   // by "lesson/question"
  std::map<std::string, NumericCache> numerics;  // by "lesson/question"
  // Curves of the shipped language models that the model-backed questions of every lesson
  // read (core/quiz/lm_questions.hpp): measured once, by lm_job, when a quiz first shows
  // such a question, then kept (the models do not change while the app runs).
  std::optional<QuizLmData> lm_models;
  bool lm_fetched = false;  // the browser build's fetch of their files is done
  BackgroundJob<QuizLmData> lm_job;
  std::map<std::string, io::MdDocument> md_cache;  // parsed Markdown by source text
  std::mt19937_64 rng{std::random_device{}()};     // seeds of new attempts (not content)
  // For check_state: what the last frame drew.
  std::string drawn_lesson;
  int blocks_drawn = -1;
  int blocks_folded = 0;  // text blocks folded behind a prediction not yet made
  int questions_drawn = -1;
  int catalog_rows_drawn = -1;
  int lab_links_drawn = -1;  // buttons of the lesson's labs column (-1: column not shown)
  // Pictures of the labs a lesson opens (assets/welcome/<lab>.png), by lab id.
  std::map<std::string, std::unique_ptr<gfx::ImageTexture>> lab_pictures;
};

// The language the lessons are drawn in (Chinese only while a Chinese font is available).
Language lessons_language(const LessonsUi& u);
// The lessons' interface word `key` (lessons/ui.toml) in that language.
std::string lessons_word(const LessonsUi& u, const std::string& key);
// `text` parsed as Markdown, cached by its text.
const io::MdDocument& lessons_md(LessonsUi& u, const std::string& text);
// Writes the progress file (never in checks and captures); a failure becomes a banner.
void lessons_save(AppContext& ctx, LessonsUi& u);

// The lab links of a lesson's text in document order ("lab:" stripped), each preset once,
// with the link's own words.
struct LessonLabLink {
  std::string text;    // the link's words in the lesson
  std::string preset;  // e.g. "rope?dim=16"
};
std::vector<LessonLabLink> lessons_lab_links(const io::MdDocument& doc);
// Beside the lesson on a wide window: every lab the lesson opens, a picture of it and one
// button per link, `width` px wide. Sets u.lab_links_drawn.
void lessons_labs_column(AppContext& ctx, LessonsUi& u, ImFont* heading_font,
                         const std::vector<LessonLabLink>& links, float width);

// The lesson's text: its Markdown with each Predict callout drawn as a question card, and
// the text after an unmade prediction folded (io/lessons MdCallout). Returns the blocks
// drawn; sets u.blocks_folded to the blocks left folded.
int lessons_text(AppContext& ctx, LessonsUi& u, ImFont* heading_font, const io::Lesson& lesson,
                 LessonProgress& lp, MarkdownView& view, const TextPalette& pal);

// A Predict callout of the lesson's text drawn as a question card (lessons_quiz_view.cpp).
void lessons_predict_callout(AppContext& ctx, LessonsUi& u, ImFont* heading_font,
                             const io::Lesson& lesson, const Question& q, LessonProgress& lp,
                             MarkdownView& view, const TextPalette& pal);

// The quiz tab: every question of `lesson` with its feedback (predictions asked in the text
// stay there), then the completion checklist.
void lessons_quiz(AppContext& ctx, LessonsUi& u, ImFont* heading_font, const io::Lesson& lesson,
                  LessonProgress& lp, const TextPalette& pal);

}  // namespace poslab::app
