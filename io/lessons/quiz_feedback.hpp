// Feedback words of the quizzes, shared by the lessons panel and `poslab-cli quiz`: the
// precision a numeric answer needs, and the explanation of each recognised mistake, in
// the learner's language. The words live in lessons/ui.toml ("precision_*",
// "mistake_<id>"); the numbers come from core/quiz.
#pragma once
#include <string>
#include <vector>

#include "core/quiz/numeric.hpp"
#include "core/quiz/quiz.hpp"
#include "io/lessons/lesson_files.hpp"

namespace poslab::io {

// "Give a whole number." / "Accepted within ±0.01 rad; any angle equal modulo 2π counts."
std::string numeric_precision_text(const NumericQuestion& q, const LocalText& unit,
                                   const UiText& ui, Language lang);

struct MistakeNote {
  std::string id;    // core/quiz mistake id, e.g. "ntk_bs"
  std::string text;  // ui.toml's mistake_<id>, filled with the question's params and steps
};
// The recognised mistakes of a wrong numeric answer, explained (empty when none matches).
std::vector<MistakeNote> numeric_mistake_notes(const NumericQuestion& q, double given,
                                               const UiText& ui, Language lang);

// Every mistake id the generators can produce (for the lint: each needs ui.toml text).
std::vector<std::string> numeric_mistake_ids_for(const std::string& generator);

}  // namespace poslab::io
