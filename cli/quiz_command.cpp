// `poslab-cli quiz`: the lessons' quizzes without a display, so grading is scriptable.
//   quiz list                              lessons, their questions, and what is broken
//   quiz show LESSON QUESTION [--seed S]   one question as JSON: options in the order of
//                                          attempt S, numeric parameters drawn from S
//   quiz check LESSON QUESTION [-a X]      grade an answer given as shown by `show` with
//                                          the same --seed (letters "B" / "A,C", a number;
//                                          open questions need no answer)
//   quiz presets [--lines]                 every lab preset the lessons open
// Explanations and numeric solutions are printed when the answer is right, on the last
// try (--try), or on request (--explain). The language is --lang, else $POSLAB_LANG, else
// the locale's (LC_ALL, LC_MESSAGES, LANG: zh* answers in Chinese), else English; nothing
// is remembered between calls, so one command always prints the same JSON.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/quiz/lm_questions.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/quiz.hpp"
#include "io/data/data_dir.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/quiz_feedback.hpp"
#include "io/quiz/quiz_lm_io.hpp"

namespace poslab::cli {
namespace {

using namespace poslab::io;

struct QuizArgs {
  std::string dir;
  std::string lang;  // empty: $POSLAB_LANG, the locale's, else en
  std::string lesson, question;
  std::uint64_t seed = 0;
  std::string answer;
  int attempt_try = 1;   // which try of this attempt the answer is (1-based)
  bool explain = false;  // reveal explanations now
};

Language parse_language(const std::string& source, const std::string& s) {
  if (s == "en") return Language::en;
  if (s == "zh") return Language::zh;
  throw InputError(source + " = \"" + s + "\": use en or zh");
}

// The language to answer in: --lang, else $POSLAB_LANG (both en or zh, anything else is an
// error naming it), else the locale's (the first set of LC_ALL, LC_MESSAGES, LANG; "zh..."
// is Chinese, anything else English), else English.
Language language(const QuizArgs& a) {
  if (!a.lang.empty()) return parse_language("--lang", a.lang);
  if (const char* v = std::getenv("POSLAB_LANG"); v && *v) return parse_language("POSLAB_LANG", v);
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"})
    if (const char* v = std::getenv(name); v && *v)
      return std::string_view(v).starts_with("zh") ? Language::zh : Language::en;
  return Language::en;
}

LessonLibrary load(const QuizArgs& a) {
  LessonLibrary lib = load_lessons(a.dir.empty() ? lessons_dir() : a.dir);
  if (lib.catalog_problem) throw InputError(lib.catalog_problem->text());
  return lib;
}

UiText load_words(const LessonLibrary& lib) {
  try {
    return load_ui_text(lib.dir);
  } catch (const Error& e) {
    std::cerr << "note: " << e.what() << " (feedback shows keys instead of words)\n";
    return {};
  }
}

// The lesson and question named on the command line; InputError naming what is missing.
std::pair<const Lesson*, const Question*> find(const LessonLibrary& lib, const QuizArgs& a) {
  const Lesson* lesson = lib.find(a.lesson);
  if (lesson == nullptr) {
    std::string ids;
    for (const auto& l : lib.lessons) ids += (ids.empty() ? "" : ", ") + l.entry.id;
    throw InputError("lesson \"" + a.lesson + "\" is not in the catalog (lessons: " + ids + ")");
  }
  if (lesson->broken())
    throw InputError("lesson \"" + a.lesson + "\" is broken: " + lesson->problems.front().text());
  const Question* q = lesson->find_question(a.question);
  if (q == nullptr) {
    std::string ids;
    for (const auto& x : lesson->quiz.questions) ids += (ids.empty() ? "" : ", ") + x.id;
    throw InputError("question \"" + a.question + "\" is not in lesson " + a.lesson +
                     " (questions: " + ids + ")");
  }
  return {lesson, q};
}

Json problems_json(const std::vector<LessonProblem>& problems) {
  Json arr = Json::array();
  for (const auto& p : problems)
    arr.push_back({{"file", p.file}, {"line", p.line}, {"message", p.message}});
  return arr;
}

Json letters(const std::vector<int>& shown) {
  Json arr = Json::array();
  for (int s : shown) arr.push_back(quiz_option_letter(s));
  return arr;
}

void run_list(const QuizArgs& a) {
  const Language lang = language(a);
  const LessonLibrary lib = load(a);
  Json out;
  out["dir"] = lib.dir;
  out["lang"] = lang == Language::zh ? "zh" : "en";
  Json lessons = Json::array();
  for (const auto& l : lib.lessons) {
    Json j;
    j["id"] = l.entry.id;
    j["title"] = l.entry.title.in(lang);
    j["summary"] = l.entry.summary.in(lang);
    j["status"] = l.broken() ? "broken" : "ok";
    Json qs = Json::array();
    for (const auto& q : l.quiz.questions)
      qs.push_back({{"id", q.id}, {"kind", quiz_kind_name(q.kind)}});
    j["questions"] = qs;
    j["lab_links"] = markdown_lab_links(l.text_en);
    if (l.broken()) j["problems"] = problems_json(l.problems);
    lessons.push_back(j);
  }
  out["lessons"] = lessons;
  std::cout << dump_json(out, 2) << "\n";
}

// A numeric question of attempt `seed`; a model-backed one is measured on the shipped
// models first (core/quiz/lm_questions.hpp), which takes a few seconds.
NumericQuestion numeric_question(const Question& q, std::uint64_t seed) {
  if (!quiz_generator_uses_models(q.generator)) return quiz_generate(q.generator, seed);
  const QuizLmData models = quiz_lm_load({q.generator});
  return quiz_generate(q.generator, seed, &models);
}

// What a model-backed question was measured on, so `poslab-cli lm eval` can repeat it.
Json measured_json(const NumericQuestion& nq) {
  Json models = Json::array();
  for (lm::LengthModelId id : quiz_lm_models(nq.generator))
    models.push_back(std::string("lm_") + lm::length_model_name(id));
  return {{"models", models}, {"positions_per_L", kQuizLmSpan}, {"windows", kQuizLmWindows}};
}

Json precision_json(const NumericQuestion& nq, const Question& q, const UiText& ui, Language lang) {
  return {{"integer", nq.integer},
          {"abs_tol", nq.abs_tol},
          {"rel_tol", nq.rel_tol},
          {"period", nq.period},
          {"text", numeric_precision_text(nq, q.unit, ui, lang)}};
}

Json question_json(const Lesson& lesson, const Question& q, Language lang, std::uint64_t seed,
                   const UiText& ui) {
  Json j;
  j["lesson"] = lesson.entry.id;
  j["id"] = q.id;
  j["kind"] = quiz_kind_name(q.kind);
  j["seed"] = seed;
  if (q.kind == QuestionKind::numeric) {
    const NumericQuestion nq = numeric_question(q, seed);
    j["prompt"] = quiz_fill_template(q.prompt.in(lang), nq);
    if (quiz_generator_uses_models(q.generator)) j["measured"] = measured_json(nq);
    if (!nq.unavailable.empty()) j["unavailable"] = nq.unavailable;
    j["generator"] = q.generator;
    Json params = Json::object();
    for (const auto& p : nq.params) params[p.name] = p.value;
    j["params"] = params;
    j["unit"] = q.unit.in(lang);
    j["integer"] = nq.integer;
    j["precision"] = precision_json(nq, q, ui, lang);
  } else {
    j["prompt"] = q.prompt.in(lang);
  }
  if (q.kind == QuestionKind::spot_error) j["claim"] = q.claim.in(lang);
  if (quiz_is_choice(q.kind)) {
    const std::vector<int> order = quiz_option_order(q, seed);
    Json opts = Json::array();
    for (size_t k = 0; k < order.size(); ++k)
      opts.push_back({{"letter", quiz_option_letter(static_cast<int>(k))},
                      {"text", q.options[static_cast<size_t>(order[k])].text.in(lang)}});
    j["options"] = opts;
    j["multiple"] = q.kind == QuestionKind::multiple;
    j["tries_before_reveal"] = quiz_tries_before_reveal(q);
  }
  if (q.kind == QuestionKind::predict) j["preset"] = q.preset;
  if (q.kind == QuestionKind::open) {
    Json items = Json::array();
    for (const auto& c : q.checklist) items.push_back(c.in(lang));
    j["checklist"] = items;
  }
  return j;
}

void run_show(const QuizArgs& a) {
  const Language lang = language(a);
  const LessonLibrary lib = load(a);
  const auto [lesson, q] = find(lib, a);
  std::cout << dump_json(question_json(*lesson, *q, lang, a.seed, load_words(lib)), 2) << "\n";
}

// The points this answer earns (core/quiz's quiz_points: 1 on the first try, less after),
// beside what a right first try earns, so the difference is visible.
void points_json(bool correct, int attempt_try, Json& out) {
  out["points"] = quiz_points(correct, attempt_try);
  out["points_first_try"] = quiz_points(true, 1);
}

void check_choice(const QuizArgs& a, const Question& q, Language lang, Json& out) {
  if (a.answer.empty())
    throw InputError(
        "--answer is missing: give option letters as `show` lists them, e.g. "
        "--answer B or A,C");
  const std::vector<int> order = quiz_option_order(q, a.seed);
  const std::vector<int> shown = quiz_parse_choices(a.answer, static_cast<int>(order.size()));
  const ChoiceVerdict v = quiz_check_choice(q, quiz_shown_to_declared(order, shown));
  const bool reveal = quiz_reveal_explanations(q, v.correct, a.attempt_try, a.explain);
  out["correct"] = v.correct;
  out["chosen"] = letters(shown);
  points_json(v.correct, a.attempt_try, out);
  // Which options were missed or wrongly chosen, as letters of this attempt's order, only
  // once revealed (before, "missed: B, C" would be the answer); a multiple-choice item says
  // before that only how many options are right.
  const ChoiceFeedback f = quiz_choice_feedback(q, v, reveal);
  if (reveal) {
    out["missed"] = letters(quiz_declared_to_shown(order, f.missed));
    out["wrong"] = letters(quiz_declared_to_shown(order, f.wrong));
  } else if (f.right_count > 0) {
    out["right_count"] = f.right_count;
  }
  out["revealed"] = reveal;
  if (!reveal) {
    out["tries_left"] = quiz_tries_before_reveal(q) - a.attempt_try;
    return;
  }
  out["correct_options"] = letters(quiz_declared_to_shown(order, quiz_correct_options(q)));
  Json explanations = Json::array();
  for (size_t k = 0; k < order.size(); ++k) {
    const ChoiceOption& o = q.options[static_cast<size_t>(order[k])];
    explanations.push_back({{"letter", quiz_option_letter(static_cast<int>(k))},
                            {"correct", o.correct},
                            {"explain", o.explain.in(lang)}});
  }
  out["explanations"] = explanations;
  if (!q.explain.in(lang).empty()) out["note"] = q.explain.in(lang);
  if (q.kind == QuestionKind::predict) {
    out["reveal"] = q.reveal.in(lang);
    out["reveal_preset"] = q.reveal_preset.empty() ? q.preset : q.reveal_preset;
  }
}

void check_numeric(const QuizArgs& a, const Question& q, Language lang, const UiText& ui,
                   Json& out) {
  if (a.answer.empty()) throw InputError("--answer is missing: give a number, e.g. --answer 3.14");
  const double given = parse_double(a.answer, "--answer");
  const NumericQuestion nq = numeric_question(q, a.seed);
  if (!nq.unavailable.empty())
    throw FileError(a.lesson + "/" + q.id, "cannot be graded: " + nq.unavailable);
  const NumericVerdict v = quiz_check_numeric(nq, given);
  const bool reveal = quiz_reveal_explanations(q, v.correct, a.attempt_try, a.explain);
  out["correct"] = v.correct;
  out["given"] = given;
  points_json(v.correct, a.attempt_try, out);
  out["precision"] = precision_json(nq, q, ui, lang);
  Json mistakes = Json::array();
  for (const auto& m : numeric_mistake_notes(nq, given, ui, lang))
    mistakes.push_back({{"id", m.id}, {"text", m.text}});
  out["mistakes"] = mistakes;
  out["revealed"] = reveal;
  if (!reveal) {
    out["tries_left"] = quiz_tries_before_reveal(q) - a.attempt_try;
    return;
  }
  out["expected"] = v.expected;
  out["error"] = v.error;
  out["tolerance"] = v.tolerance;
  Json steps = Json::array();
  for (const auto& s : nq.steps)
    steps.push_back({{"name", s.name}, {"label", s.label}, {"value", s.value}});
  out["steps"] = steps;
  out["explain"] = quiz_fill_template(q.explain.in(lang), nq, true);
}

void run_check(const QuizArgs& a) {
  if (a.attempt_try < 1)
    throw InputError("--try = " + std::to_string(a.attempt_try) + ": tries are counted from 1");
  const Language lang = language(a);
  const LessonLibrary lib = load(a);
  const auto [lesson, q] = find(lib, a);
  const UiText ui = load_words(lib);
  Json out;
  out["lesson"] = lesson->entry.id;
  out["id"] = q->id;
  out["kind"] = quiz_kind_name(q->kind);
  out["seed"] = a.seed;
  if (quiz_is_choice(q->kind)) {
    check_choice(a, *q, lang, out);
  } else if (q->kind == QuestionKind::numeric) {
    check_numeric(a, *q, lang, ui, out);
  } else {  // open: self-assessed against the reference answer; the answer is optional
    out["self_assessed"] = true;
    if (!a.answer.empty()) out["your_answer"] = a.answer;
    out["reference"] = q->reference.in(lang);
    Json items = Json::array();
    for (const auto& c : q->checklist) items.push_back(c.in(lang));
    out["checklist"] = items;
  }
  std::cout << dump_json(out, 2) << "\n";
}

// Every lab preset the lessons use (lab links in both languages, predict questions), so
// the app's --check can load each one: JSON by default, one per line with --lines. Links
// to a pending lab (lesson_pending_labs) are left out until its panel is registered.
void run_presets(const QuizArgs& a, bool lines) {
  const LessonLibrary lib = load(a);
  std::vector<std::string> all;
  auto add = [&](const std::string& p) {
    if (p.empty() || lesson_link_to_pending_lab(p)) return;  // its panel may not exist yet
    if (std::find(all.begin(), all.end(), p) == all.end()) all.push_back(p);
  };
  for (const auto& l : lib.lessons) {
    for (const auto& p : markdown_lab_links(l.text_en)) add(p);
    for (const auto& p : markdown_lab_links(l.text_zh)) add(p);
    for (const auto& q : l.quiz.questions) {
      add(q.preset);
      add(q.reveal_preset);
    }
  }
  if (lines) {
    for (const auto& p : all) std::cout << p << "\n";
    return;
  }
  std::cout << dump_json(Json(all), 2) << "\n";
}

void add_common(CLI::App* cmd, QuizArgs& a) {
  cmd->add_option("--dir", a.dir,
                  "lessons folder (default: $POSLAB_LESSONS_DIR or the installed lessons)");
  cmd->add_option("--lang", a.lang, "en | zh (default: $POSLAB_LANG, else the locale's, else en)");
}

}  // namespace

void add_quiz_command(CLI::App& app) {
  auto args = std::make_shared<QuizArgs>();
  auto* quiz = app.add_subcommand(
      "quiz", "lessons' quizzes: list lessons, show a question, check an answer");
  quiz->require_subcommand(1);

  auto* list = quiz->add_subcommand("list", "every lesson with its questions and problems");
  add_common(list, *args);
  list->callback([args] { run_list(*args); });

  auto* show = quiz->add_subcommand("show", "one question as JSON (no answers)");
  add_common(show, *args);
  show->add_option("lesson", args->lesson, "lesson id, e.g. 03-rope")->required();
  show->add_option("question", args->question, "question id")->required();
  show->add_option("--seed", args->seed,
                   "the attempt: option order and numeric parameters (default 0)");
  show->callback([args] { run_show(*args); });

  auto* presets = quiz->add_subcommand("presets", "every lab preset the lessons open");
  presets->add_option("--dir", args->dir, "lessons folder");
  auto lines = std::make_shared<bool>(false);
  presets->add_flag("--lines", *lines, "one preset per line (a presets file for poslab --check)");
  presets->callback([args, lines] { run_presets(*args, *lines); });

  auto* check = quiz->add_subcommand("check", "grade an answer");
  add_common(check, *args);
  check->add_option("lesson", args->lesson, "lesson id")->required();
  check->add_option("question", args->question, "question id")->required();
  check->add_option("-a,--answer", args->answer,
                    "option letters as `show` lists them (B or A,C), or a number; open "
                    "questions: optional text");
  check->add_option("--seed", args->seed, "the attempt `show` used (default 0)");
  check->add_option("--try", args->attempt_try,
                    "which try of this attempt (default 1); the last one reveals explanations, and "
                    "a right answer after the first try earns half a point");
  check->add_flag("--explain", args->explain, "reveal explanations and the solution now");
  check->callback([args] { run_check(*args); });
}

}  // namespace poslab::cli
