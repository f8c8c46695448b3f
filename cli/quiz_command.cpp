// `poslab-cli quiz`: the lessons' quizzes without a display, so grading is scriptable.
//   quiz list                         lessons, their questions, and what is broken
//   quiz show LESSON QUESTION         one question as JSON (numeric: parameters from --seed)
//   quiz check LESSON QUESTION -a X   grade an answer (letters "B" / "A,C", or a number)
//   quiz presets [--lines]            every lab preset the lessons open
// The answers themselves are only printed by `check`.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/quiz.hpp"
#include "io/lessons/lesson_files.hpp"

namespace poslab::cli {
namespace {

struct QuizArgs {
  std::string dir;
  std::string lang = "en";
  std::string lesson, question;
  std::uint64_t seed = 0;
  std::string answer;
};

Language parse_language(const std::string& s) {
  if (s == "en") return Language::en;
  if (s == "zh") return Language::zh;
  throw InputError("--lang = \"" + s + "\": use en or zh");
}

LessonLibrary load(const QuizArgs& a) {
  LessonLibrary lib = load_lessons(a.dir.empty() ? default_lessons_dir() : a.dir);
  if (lib.catalog_problem) throw InputError(lib.catalog_problem->text());
  return lib;
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

void run_list(const QuizArgs& a) {
  const Language lang = parse_language(a.lang);
  const LessonLibrary lib = load(a);
  Json out;
  out["dir"] = lib.dir;
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

Json question_json(const Lesson& lesson, const Question& q, Language lang, std::uint64_t seed) {
  Json j;
  j["lesson"] = lesson.entry.id;
  j["id"] = q.id;
  j["kind"] = quiz_kind_name(q.kind);
  if (q.kind == QuestionKind::numeric) {
    const NumericQuestion nq = quiz_generate(q.generator, seed);
    j["prompt"] = quiz_fill_template(q.prompt.in(lang), nq);
    j["generator"] = q.generator;
    j["seed"] = seed;
    Json params = Json::object();
    for (const auto& p : nq.params) params[p.name] = p.value;
    j["params"] = params;
    j["unit"] = q.unit.in(lang);
    j["integer"] = nq.integer;
  } else {
    j["prompt"] = q.prompt.in(lang);
  }
  if (q.kind == QuestionKind::spot_error) j["claim"] = q.claim.in(lang);
  if (quiz_is_choice(q.kind)) {
    Json opts = Json::array();
    for (size_t i = 0; i < q.options.size(); ++i)
      opts.push_back({{"letter", quiz_option_letter(static_cast<int>(i))},
                      {"text", q.options[i].text.in(lang)}});
    j["options"] = opts;
    j["multiple"] = q.kind == QuestionKind::multiple;
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
  const Language lang = parse_language(a.lang);
  const LessonLibrary lib = load(a);
  const auto [lesson, q] = find(lib, a);
  std::cout << dump_json(question_json(*lesson, *q, lang, a.seed), 2) << "\n";
}

void run_check(const QuizArgs& a) {
  const Language lang = parse_language(a.lang);
  const LessonLibrary lib = load(a);
  const auto [lesson, q] = find(lib, a);
  Json out;
  out["lesson"] = lesson->entry.id;
  out["id"] = q->id;
  out["kind"] = quiz_kind_name(q->kind);
  if (quiz_is_choice(q->kind)) {
    if (a.answer.empty())
      throw InputError("--answer is missing: give option letters, e.g. --answer B or A,C");
    const std::vector<int> chosen =
        quiz_parse_choices(a.answer, static_cast<int>(q->options.size()));
    const ChoiceVerdict v = quiz_check_choice(*q, chosen);
    out["correct"] = v.correct;
    Json picked = Json::array(), right = Json::array(), explanations = Json::array();
    for (int c : chosen) picked.push_back(quiz_option_letter(c));
    for (int c : quiz_correct_options(*q)) right.push_back(quiz_option_letter(c));
    for (size_t i = 0; i < q->options.size(); ++i)
      explanations.push_back({{"letter", quiz_option_letter(static_cast<int>(i))},
                              {"correct", q->options[i].correct},
                              {"explain", q->options[i].explain.in(lang)}});
    out["chosen"] = picked;
    out["correct_options"] = right;
    out["explanations"] = explanations;
    if (q->kind == QuestionKind::predict) {
      out["reveal"] = q->reveal.in(lang);
      out["reveal_preset"] = q->reveal_preset.empty() ? q->preset : q->reveal_preset;
    }
  } else if (q->kind == QuestionKind::numeric) {
    if (a.answer.empty())
      throw InputError("--answer is missing: give a number, e.g. --answer 3.14");
    const double given = parse_double(a.answer, "--answer");
    const NumericQuestion nq = quiz_generate(q->generator, a.seed);
    const NumericVerdict v = quiz_check_numeric(nq, given);
    out["seed"] = a.seed;
    out["correct"] = v.correct;
    out["given"] = given;
    out["expected"] = v.expected;
    out["error"] = v.error;
    out["tolerance"] = v.tolerance;
    out["explain"] = quiz_fill_template(q->explain.in(lang), nq);
  } else {  // open: self-assessed against the reference answer
    out["self_assessed"] = true;
    out["reference"] = q->reference.in(lang);
    Json items = Json::array();
    for (const auto& c : q->checklist) items.push_back(c.in(lang));
    out["checklist"] = items;
  }
  std::cout << dump_json(out, 2) << "\n";
}

// Every lab preset the lessons use (lab links in both languages, predict questions), so
// the app's --check can load each one: JSON by default, one per line with --lines.
void run_presets(const QuizArgs& a, bool lines) {
  const LessonLibrary lib = load(a);
  std::vector<std::string> all;
  auto add = [&](const std::string& p) {
    if (!p.empty() && std::find(all.begin(), all.end(), p) == all.end()) all.push_back(p);
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
  cmd->add_option("--lang", a.lang, "en | zh");
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
  show->add_option("--seed", args->seed, "numeric questions: seed of the parameters (default 0)");
  show->callback([args] { run_show(*args); });

  auto* presets = quiz->add_subcommand("presets", "every lab preset the lessons open");
  add_common(presets, *args);
  auto lines = std::make_shared<bool>(false);
  presets->add_flag("--lines", *lines, "one preset per line (a presets file for poslab --check)");
  presets->callback([args, lines] { run_presets(*args, *lines); });

  auto* check = quiz->add_subcommand("check", "grade an answer");
  add_common(check, *args);
  check->add_option("lesson", args->lesson, "lesson id")->required();
  check->add_option("question", args->question, "question id")->required();
  check->add_option("-a,--answer", args->answer, "option letters (B or A,C) or a number");
  check->add_option("--seed", args->seed, "numeric questions: the seed `show` used (default 0)");
  check->callback([args] { run_check(*args); });
}

}  // namespace poslab::cli
