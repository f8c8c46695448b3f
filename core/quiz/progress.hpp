// A learner's progress through the lessons: the latest answer to each question, checklist
// ticks and completed lessons, plus the rules that turn them into scores. Plain data;
// io/lessons/progress_file saves it as JSON in the user's data directory.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/quiz/numeric.hpp"
#include "core/quiz/quiz.hpp"

namespace poslab {

// The latest state of one question.
struct AnswerRecord {
  int attempts = 0;         // answers submitted so far (retries count), >= 0
  bool answered = false;    // the current attempt has been submitted
  bool correct = false;     // the current attempt was right (open: every item ticked)
  std::vector<int> chosen;  // choice kinds: option indices of the current attempt
  double number = 0;        // numeric: the value given
  std::uint64_t seed = 0;   // numeric: seed of the current attempt's parameters
  std::string text;         // open: the learner's own answer
  std::vector<bool> ticks;  // open: self-assessment items ticked
  bool operator==(const AnswerRecord&) const = default;
};

struct LessonProgress {
  std::map<std::string, AnswerRecord> answers;  // by question id
  std::vector<bool> checklist;                  // the lesson's completion checklist
  bool completed = false;                       // set by quiz_update_completion
  bool operator==(const LessonProgress&) const = default;
};

struct Progress {
  std::map<std::string, LessonProgress> lessons;  // by lesson id (unknown ids are kept)
  std::string language = "en";                    // "en" or "zh": the learner's last choice
  bool operator==(const Progress&) const = default;
};

// Two windows (or a window and poslab-cli) on one progress file: `disk` is what is saved
// now, `mine` this window's progress, `base` what this window loaded or last saved. The
// result is `disk` with this window's changes since `base` applied: each answer and each
// checklist this window changed replaces the saved one, a lesson completed anywhere stays
// completed, the language is this window's if it changed it. Nothing is ever removed.
Progress progress_merge(const Progress& base, const Progress& mine, const Progress& disk);

// Grading that also records the attempt. Choice and numeric: throw InputError on bad
// input (nothing is recorded then). Open: stores the text and the ticks.
ChoiceVerdict quiz_answer_choice(AnswerRecord& rec, const Question& q,
                                 const std::vector<int>& chosen);
// `models`: the curves a model-backed numeric question reads (core/quiz/lm_questions.hpp).
NumericVerdict quiz_answer_numeric(AnswerRecord& rec, const Question& q, double given,
                                   const QuizLmData* models = nullptr);
void quiz_answer_open(AnswerRecord& rec, const Question& q, const std::string& text,
                      const std::vector<bool>& ticks);
// Starts a new attempt (new seed for numeric questions); attempts so far are kept.
void quiz_retry(AnswerRecord& rec, std::uint64_t new_seed);

// Score of one question in [0, 1]: quiz_points of the current attempt (1 for a right answer
// given on the first try, kRetryPoints for one given after earlier answers, 0 when wrong),
// open questions the share of ticked self-assessment items.
double quiz_question_score(const Question& q, const AnswerRecord& rec);

// Predictions (QuestionKind::predict) are made, not graded: they count in neither.
struct LessonScore {
  double points = 0;  // sum of question scores
  int total = 0;      // number of graded questions
  int answered = 0;   // questions with a submitted current attempt
};
LessonScore quiz_lesson_score(const Quiz& quiz, const LessonProgress& lp);

// A lesson is complete when every question has been answered correctly (open ones:
// submitted; predictions: made once, right or wrong) and every item of its completion checklist is
// ticked. Updates lp.completed and returns it; a lesson once completed stays completed.
bool quiz_update_completion(const Quiz& quiz, LessonProgress& lp);

}  // namespace poslab
