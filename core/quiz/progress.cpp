// Recording answers and turning them into scores (see progress.hpp).
#include "core/quiz/progress.hpp"

#include <algorithm>

#include "core/common/errors.hpp"

namespace poslab {

ChoiceVerdict quiz_answer_choice(AnswerRecord& rec, const Question& q,
                                 const std::vector<int>& chosen) {
  ChoiceVerdict v = quiz_check_choice(q, chosen);  // throws before anything is recorded
  rec.attempts += 1;
  rec.answered = true;
  rec.correct = v.correct;
  rec.chosen = chosen;
  std::sort(rec.chosen.begin(), rec.chosen.end());
  rec.chosen.erase(std::unique(rec.chosen.begin(), rec.chosen.end()), rec.chosen.end());
  return v;
}

NumericVerdict quiz_answer_numeric(AnswerRecord& rec, const Question& q, double given,
                                   const QuizLmData* models) {
  if (q.kind != QuestionKind::numeric)
    throw InputError("question \"" + q.id + "\" is a " + quiz_kind_name(q.kind) +
                     " question, not numeric");
  const NumericVerdict v = quiz_check_numeric(quiz_generate(q.generator, rec.seed, models), given);
  rec.attempts += 1;
  rec.answered = true;
  rec.correct = v.correct;
  rec.number = given;
  return v;
}

void quiz_answer_open(AnswerRecord& rec, const Question& q, const std::string& text,
                      const std::vector<bool>& ticks) {
  if (q.kind != QuestionKind::open)
    throw InputError("question \"" + q.id + "\" is a " + quiz_kind_name(q.kind) +
                     " question, not open");
  if (!rec.answered) rec.attempts += 1;
  rec.answered = true;
  rec.text = text;
  rec.ticks = ticks;
  rec.ticks.resize(q.checklist.size(), false);
  rec.correct = std::all_of(rec.ticks.begin(), rec.ticks.end(), [](bool b) { return b; });
}

void quiz_retry(AnswerRecord& rec, std::uint64_t new_seed) {
  rec.answered = false;
  rec.correct = false;
  rec.chosen.clear();
  rec.number = 0;
  rec.seed = new_seed;
}

double quiz_question_score(const Question& q, const AnswerRecord& rec) {
  if (!rec.answered) return 0.0;
  if (q.kind == QuestionKind::open) {
    if (q.checklist.empty()) return 1.0;
    int ticked = 0;
    for (size_t i = 0; i < q.checklist.size() && i < rec.ticks.size(); ++i)
      ticked += rec.ticks[i] ? 1 : 0;
    return double(ticked) / double(q.checklist.size());
  }
  return quiz_points(rec.correct, rec.attempts);
}

LessonScore quiz_lesson_score(const Quiz& quiz, const LessonProgress& lp) {
  LessonScore s;
  for (const auto& q : quiz.questions) {
    if (q.kind == QuestionKind::predict) continue;  // a prediction is made, not graded
    s.total += 1;
    const auto it = lp.answers.find(q.id);
    if (it == lp.answers.end()) continue;
    s.points += quiz_question_score(q, it->second);
    s.answered += it->second.answered ? 1 : 0;
  }
  return s;
}

bool quiz_update_completion(const Quiz& quiz, LessonProgress& lp) {
  if (lp.completed) return true;
  for (const auto& q : quiz.questions) {
    const auto it = lp.answers.find(q.id);
    if (it == lp.answers.end()) return false;
    if (q.kind == QuestionKind::predict) {  // made once, right or wrong
      if (it->second.attempts == 0) return false;
      continue;
    }
    if (!it->second.answered) return false;
    if (q.kind != QuestionKind::open && !it->second.correct) return false;
  }
  for (size_t i = 0; i < quiz.checklist.size(); ++i)
    if (i >= lp.checklist.size() || !lp.checklist[i]) return false;
  lp.completed = true;
  return true;
}

Progress progress_merge(const Progress& base, const Progress& mine, const Progress& disk) {
  Progress out = disk;
  if (mine.language != base.language) out.language = mine.language;
  for (const auto& [id, lp] : mine.lessons) {
    const auto b = base.lessons.find(id);
    const LessonProgress* before = b == base.lessons.end() ? nullptr : &b->second;
    LessonProgress& o = out.lessons[id];
    for (const auto& [qid, rec] : lp.answers) {
      const auto was = before ? before->answers.find(qid) : lp.answers.end();
      if (!before || was == before->answers.end() || !(was->second == rec)) o.answers[qid] = rec;
    }
    if (!before || before->checklist != lp.checklist) o.checklist = lp.checklist;
    o.completed = o.completed || lp.completed;
  }
  return out;
}

}  // namespace poslab
