// Grading of choice questions and the names of question kinds (see quiz.hpp).
#include "core/quiz/quiz.hpp"

#include <algorithm>
#include <cctype>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"

namespace poslab {

const std::vector<std::string>& quiz_kind_names() {
  static const std::vector<std::string> names{"single",  "multiple", "numeric",
                                              "predict", "open",     "spot_error"};
  return names;
}

QuestionKind quiz_kind_from_name(const std::string& name) {
  const auto& names = quiz_kind_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<QuestionKind>(i);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InputError("question kind \"" + name + "\" is unknown (use one of: " + list + ")");
}

const std::string& quiz_kind_name(QuestionKind kind) {
  return quiz_kind_names()[static_cast<size_t>(kind)];
}

bool quiz_is_choice(QuestionKind kind) {
  return kind == QuestionKind::single || kind == QuestionKind::multiple ||
         kind == QuestionKind::predict || kind == QuestionKind::spot_error;
}

std::vector<int> quiz_correct_options(const Question& q) {
  std::vector<int> out;
  for (size_t i = 0; i < q.options.size(); ++i)
    if (q.options[i].correct) out.push_back(static_cast<int>(i));
  return out;
}

ChoiceVerdict quiz_check_choice(const Question& q, const std::vector<int>& chosen) {
  if (!quiz_is_choice(q.kind))
    throw InputError("question \"" + q.id + "\" is a " + quiz_kind_name(q.kind) +
                     " question, not a choice");
  const int n = static_cast<int>(q.options.size());
  std::vector<int> picked = chosen;
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  for (int c : picked)
    if (c < 0 || c >= n)
      throw InputError("answer option " + std::to_string(c + 1) + " of question \"" + q.id +
                       "\": there are only " + std::to_string(n) + " options (A-" +
                       quiz_option_letter(n - 1) + ")");
  if (picked.empty()) throw InputError("question \"" + q.id + "\": choose at least one option");
  if (q.kind != QuestionKind::multiple && picked.size() > 1)
    throw InputError("question \"" + q.id + "\" takes exactly one option, got " +
                     std::to_string(picked.size()));
  ChoiceVerdict v;
  for (int i = 0; i < n; ++i) {
    const bool is_picked = std::binary_search(picked.begin(), picked.end(), i);
    if (q.options[i].correct && !is_picked) v.missed.push_back(i);
    if (!q.options[i].correct && is_picked) v.wrong.push_back(i);
  }
  v.correct = v.missed.empty() && v.wrong.empty();
  return v;
}

std::vector<int> quiz_option_order(const Question& q, std::uint64_t seed) {
  const int n = static_cast<int>(q.options.size());
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  // Fisher-Yates from the top; the modulo bias of a 64-bit draw over < 26 options is nil.
  SeededStream rng(seed, "quiz-option-order:" + q.id, 0);
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

std::vector<int> quiz_shown_to_declared(const std::vector<int>& order,
                                        const std::vector<int>& shown) {
  std::vector<int> out;
  for (int s : shown) {
    if (s < 0 || s >= static_cast<int>(order.size()))
      throw InputError("option " + quiz_option_letter(s) + " is not shown (there are " +
                       std::to_string(order.size()) + " options)");
    out.push_back(order[static_cast<size_t>(s)]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> quiz_declared_to_shown(const std::vector<int>& order,
                                        const std::vector<int>& declared) {
  std::vector<int> out;
  for (int d : declared) {
    const auto it = std::find(order.begin(), order.end(), d);
    if (it == order.end())
      throw InputError("option index " + std::to_string(d) + " is not in the order");
    out.push_back(static_cast<int>(it - order.begin()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int quiz_tries_before_reveal(const Question& q) {
  return q.kind == QuestionKind::predict ? 1 : 2;
}

bool quiz_reveal_explanations(const Question& q, bool correct, int tries, bool requested) {
  return correct || requested || tries >= quiz_tries_before_reveal(q);
}

ChoiceFeedback quiz_choice_feedback(const Question& q, const ChoiceVerdict& v, bool revealed) {
  ChoiceFeedback f;
  if (v.correct) return f;
  if (revealed) {
    f.missed = v.missed;
    f.wrong = v.wrong;
  } else if (q.kind == QuestionKind::multiple) {
    f.right_count = static_cast<int>(quiz_correct_options(q).size());
  }
  return f;
}

double quiz_points(bool correct, int tries) {
  if (!correct) return 0.0;
  return tries <= 1 ? 1.0 : kRetryPoints;
}

std::string quiz_option_letter(int index) {
  if (index >= 0 && index < 26) return std::string(1, static_cast<char>('A' + index));
  return std::to_string(index + 1);
}

std::vector<int> quiz_parse_choices(const std::string& text, int option_count) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(
        std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }),
        item.end());
    int index = -1;
    if (item.size() == 1 && std::isalpha(static_cast<unsigned char>(item[0]))) {
      index = std::toupper(static_cast<unsigned char>(item[0])) - 'A';
    } else if (!item.empty() &&
               std::all_of(item.begin(), item.end(),
                           [](unsigned char c) { return std::isdigit(c); }) &&
               item.size() < 4) {
      index = std::stoi(item) - 1;
    }
    if (index < 0 || index >= option_count)
      throw InputError("answer \"" + text + "\": item \"" + item +
                       "\" is not an option (use letters A-" +
                       quiz_option_letter(option_count - 1) + ", comma-separated)");
    out.push_back(index);
    start = end + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace poslab
