// Lessons' quiz items as plain data, and the grading rules the panel and the command line
// share. The text comes from lessons/<id>/quiz.toml (read by io/lessons); every text is
// given in English and Chinese. Numeric questions are generated in numeric.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace poslab {

enum class Language { en, zh };

// One text in both languages. zh may be empty only while loading (the lint rejects it).
struct LocalText {
  std::string en;
  std::string zh;
  // The text in `lang`, falling back to English when the Chinese text is missing.
  const std::string& in(Language lang) const {
    return lang == Language::zh && !zh.empty() ? zh : en;
  }
  bool complete() const { return !en.empty() && !zh.empty(); }
};

// single: one correct option; multiple: one or more; numeric: generated parameters, a
// number checked within a tolerance; predict: a choice made before a lab (and the lesson text
// after its Predict callout) shows the answer, not graded into the score;
// open: free text, then a reference answer and a self-assessment checklist;
// spot_error: a quoted claim from popular material and a choice of what is wrong with it.
enum class QuestionKind { single, multiple, numeric, predict, open, spot_error };

const std::vector<std::string>& quiz_kind_names();          // "single", "multiple", ...
QuestionKind quiz_kind_from_name(const std::string& name);  // throws InputError
const std::string& quiz_kind_name(QuestionKind kind);
bool quiz_is_choice(QuestionKind kind);  // single, multiple, predict, spot_error

struct ChoiceOption {
  LocalText text;        // what the user picks
  bool correct = false;  // one of the declared correct answers
  LocalText explain;     // why this option is right or wrong (shown after answering)
};

struct Question {
  std::string id;                            // unique within its lesson, e.g. "q1-permutation"
  QuestionKind kind = QuestionKind::single;  // what is asked and how it is graded
  LocalText prompt;                          // Markdown; numeric prompts hold {param} placeholders
  std::vector<ChoiceOption> options;         // choice kinds: at least 2
  LocalText explain;                         // numeric: how to compute it; others: optional note
  std::string generator;                     // numeric: name from quiz_generator_names()
  LocalText unit;             // numeric: unit of the answer ("rad", "tokens"), may be empty
  std::string preset;         // predict: lab preset the question opens first
  std::string reveal_preset;  // predict: preset that shows the answer (empty = preset)
  LocalText reveal;           // predict: what to look at in the lab after answering
  LocalText answered_by;  // predict: words of the lesson text that answer it (after its callout)
  LocalText claim;        // spot_error: the quoted claim
  LocalText reference;    // open: reference answer (Markdown)
  std::vector<LocalText> checklist;  // open: self-assessment items
  int line = 0;                      // line of its [[question]] header in quiz.toml
};

// A question of some lesson, by ids.
struct QuestionRef {
  std::string lesson;  // lesson id, e.g. "03-rope"
  std::string id;      // question id in that lesson's quiz
};

struct Quiz {
  std::vector<Question> questions;
  std::vector<LocalText> checklist;  // completion checklist of the whole lesson
  // Questions of any lesson asked here first, before the lessons that teach them (lesson
  // 1's pre-test); answered again in their own lessons, they show the learner's gain.
  std::vector<QuestionRef> pretest;
};

// Option indices marked correct, ascending.
std::vector<int> quiz_correct_options(const Question& q);

struct ChoiceVerdict {
  bool correct = false;
  std::vector<int> missed;  // correct options not chosen
  std::vector<int> wrong;   // chosen options that are not correct
};
// Grades a set of chosen option indices (0-based). Throws InputError when the question is
// not a choice question, an index is out of range, or a single-answer question gets more
// than one (or no) option.
ChoiceVerdict quiz_check_choice(const Question& q, const std::vector<int>& chosen);

// The order in which one attempt shows a choice question's options: order[k] is the index
// (as declared in quiz.toml) of the option shown k-th, under letter k. A permutation drawn
// from the attempt's seed and the question id (core/common/random.hpp), so the same attempt
// always shows the same order, each new attempt another, and "A" or "the first option" is
// no cue. Letters typed or clicked are positions in this order.
std::vector<int> quiz_option_order(const Question& q, std::uint64_t seed);
// Shown positions -> declared option indices (sorted), and declared -> shown (sorted).
// Throw InputError when a position or index is outside the order.
std::vector<int> quiz_shown_to_declared(const std::vector<int>& order,
                                        const std::vector<int>& shown);
std::vector<int> quiz_declared_to_shown(const std::vector<int>& order,
                                        const std::vector<int>& declared);

// How many wrong answers (with the same options or numbers) a question takes before its
// explanations, or a numeric question's solution, are revealed without being asked for:
// 1 for predict (the lab shows the answer), else 2. A correct answer, or a request,
// reveals them at once; a wrong try before that names no option of any kind (numeric: it
// says which common mistake it looks like).
int quiz_tries_before_reveal(const Question& q);
bool quiz_reveal_explanations(const Question& q, bool correct, int tries, bool requested);

// What a wrong try of a choice question may show: the missed and wrongly chosen options
// only once revealed ("Missed: B, C" before it would be the answer, and a retry copying it
// would score); before the reveal a multiple-choice item says only how many options are
// right (right_count), other kinds say only "wrong".
struct ChoiceFeedback {
  std::vector<int> missed;  // declared indices; empty before the reveal
  std::vector<int> wrong;   // declared indices; empty before the reveal
  int right_count = 0;      // multiple choice before the reveal: options that are right; else 0
};
ChoiceFeedback quiz_choice_feedback(const Question& q, const ChoiceVerdict& v, bool revealed);

// Points for an answer: a right answer on the first try scores 1, a right answer after
// earlier tries (a retry, or after the explanations) kRetryPoints, a wrong one 0. `tries` is
// the number of answers given to the question so far, this one included (>= 1).
inline constexpr double kRetryPoints = 0.5;
double quiz_points(bool correct, int tries);

// Option letters for people and scripts: 0 -> "A". Parses "B" or "A,C" (also "1,3" as
// 1-based numbers) into sorted unique 0-based indices; throws InputError naming the item.
std::string quiz_option_letter(int index);
std::vector<int> quiz_parse_choices(const std::string& text, int option_count);

}  // namespace poslab
