// The quiz's model-backed questions from disk (issue 27): the shipped language models and
// their held-out text, found and loaded as the length lab finds them (length_lab_load), then
// measured by core (quiz_lm_measure). The CLI calls this once per command; the lessons panel
// once, for every lesson's questions, in a background job, and keeps the result.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "core/quiz/lm_questions.hpp"

namespace poslab::io {

// The curves the given generators read (other generators are ignored). Never throws for a
// missing or unreadable model or text: each becomes a QuizLmMissing naming the file and
// what to do, and the questions that need it say so; the others are answered.
QuizLmData quiz_lm_load(const std::vector<std::string>& generators,
                        const std::atomic<bool>* cancel = nullptr);

// quiz_lm_load in two parts, for the browser build, which measures one model per frame:
// the models loaded (none measured yet; `missing` already filled), then
// quiz_lm_measure(source.data, {id}) for each id of `wanted`.
struct QuizLmSource {
  lm::LengthLabData data;
  std::vector<lm::LengthModelId> wanted;  // found and loaded, in the order they are needed
  std::vector<QuizLmMissing> missing;
};
QuizLmSource quiz_lm_open(const std::vector<std::string>& generators);

}  // namespace poslab::io
