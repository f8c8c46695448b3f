// Feedback words of the quizzes (see quiz_feedback.hpp).
#include "io/lessons/quiz_feedback.hpp"

#include <algorithm>
#include <cmath>

namespace poslab::io {
namespace {

std::string replace_all(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

}  // namespace

std::string numeric_precision_text(const NumericQuestion& q, const LocalText& unit,
                                   const UiText& ui, Language lang) {
  if (q.integer) return ui.get("precision_integer", lang);
  std::string text;
  if (q.rel_tol > 0) {
    text = replace_all(ui.get("precision_relative", lang), "{percent}",
                       quiz_value_text(q.rel_tol * 100));
  } else {
    text = replace_all(ui.get("precision_absolute", lang), "{tol}", quiz_value_text(q.abs_tol));
    text = replace_all(text, "{unit}", unit.in(lang));
  }
  if (q.period > 0) text.append(" ").append(ui.get("precision_period", lang));
  return text;
}

std::vector<MistakeNote> numeric_mistake_notes(const NumericQuestion& q, double given,
                                               const UiText& ui, Language lang) {
  std::vector<MistakeNote> out;
  for (const auto& id : quiz_recognise_mistakes(q, given)) {
    std::string text = ui.get("mistake_" + id, lang);
    try {
      text = quiz_fill_template(text, q, true);
    } catch (const std::exception&) {
      // An unfilled placeholder is caught by the lint; show the raw text rather than nothing.
    }
    out.push_back({id, text});
  }
  return out;
}

std::vector<std::string> numeric_mistake_ids_for(const std::string& generator) {
  std::vector<std::string> ids;
  for (std::uint64_t seed = 0; seed < 64; ++seed)
    for (const auto& m : quiz_generate(generator, seed).mistakes)
      if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) ids.push_back(m.id);
  return ids;
}

}  // namespace poslab::io
