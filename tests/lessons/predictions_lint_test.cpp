// Content lint of the predictions (issue 41): nothing a learner sees before making a
// prediction states its answer (the title, the catalog summary, the goal, any heading, the
// text above the callout), and the fold covers every later restatement (Summary, Try this).
// The phrases below are the ways the lessons did or could give each answer away; a new
// prediction adds its own. A prediction's lab opens what its prompt describes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/attention/attention_lab.hpp"
#include "io/lessons/lesson_files.hpp"

using namespace poslab;
using namespace poslab::io;

namespace {

const LessonLibrary& predict_library() {
  static const LessonLibrary lib = load_lessons(POSLAB_TEST_LESSONS_DIR);
  return lib;
}

struct PredictGiveAway {
  std::vector<std::string> en, zh;  // case-sensitive substrings that state the answer
};

// lesson/question -> phrases. Every predict question of the lessons must be listed.
const std::map<std::string, PredictGiveAway>& predict_give_aways() {
  static const std::map<std::string, PredictGiveAway> m{
      {"01-why-positions/q2-shuffle",
       {{"same output", "shuffle the answer", "shuffle the tokens and each"},
        {"输出完全一样", "输出也跟着打乱", "输出一模一样", "每个词得到的输出"}}},
      {"02-absolute/q3-past-table",
       {{"has no embedding", "no row at all"}, {"没有对应的向量", "根本没有这一行"}}},
      {"03-rope/q6-slowest-hand", {{"the last pair is the slowest"}, {"最后一对最慢"}}},
      {"04-relative-proof/q3-shift",
       {{"depends only on", "only their difference", "only on relative", "scores do not move"},
        {"只取决于", "只剩下它们的差", "分数不变"}}},
      {"05-layouts/q4-layout-toggle",
       {{"either works", "Both are correct", "permutation of weights", "same angles"},
        {"各自都对", "两种都对", "只需置换权重", "角度相同"}}},
      {"06-long-context/q7-yarn-bands",
       {{"mostly for the slow pairs", "pairs 0–6 are kept", "keeps the fast"},
        {"主要针对低频", "第 0–6 对保持不变"}}},
      {"06-long-context/q12-rope-leaves",
       {{"1.4 L", "1.5 L", "jumps at", "creeps up"}, {"1.4 L", "1.5 L", "跳升", "缓缓上升"}}},
      {"07-relative-biases/q6-alibi-far", {{"shallow heads far back"}, {"斜率缓的头看得很远"}}},
      {"08-kv-sliding/q3-legacy-exact",
       {{"visible even at layer 0", "non-linear in P"}, {"即使在第 0 层也能看到误差"}}},
      {"08-kv-sliding/q8-trained-stream",
       {{"3.11", "2.58", "re-assigned positions give"}, {"3.11", "2.58"}}},
      {"09-stitching/q5-naive-vs-reencode",
       {{"does not fix", "cannot fix", "beyond the first layer", "not deeper"},
        {"修不好", "第一层之后"}}},
      {"09-stitching/q9-trained-stitch-gap",
       {{"3.092", "+0.125", "+0.0002"}, {"3.092", "+0.125", "+0.0002"}}},
      {"10-world-model/q11-predict-naive", {{"as soon as the window slides"}, {"窗口一开始滑动"}}},
  };
  return m;
}

std::string predict_block_text(const MdDocument& doc, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to && i < doc.blocks.size(); ++i)
    s += markdown_plain_text(doc.blocks[i]) + "\n";
  return s;
}

// The text of the "Goal" section (the first level-2 heading's section).
std::string predict_goal_text(const MdDocument& doc) {
  size_t start = doc.blocks.size();
  for (size_t i = 0; i < doc.blocks.size(); ++i) {
    const MdBlock& b = doc.blocks[i];
    if (b.kind != MdBlockKind::heading || b.level != 2) continue;
    if (start < doc.blocks.size()) return predict_block_text(doc, start, i);
    start = i;
  }
  return start < doc.blocks.size() ? predict_block_text(doc, start, doc.blocks.size()) : "";
}

std::string predict_headings_text(const MdDocument& doc) {
  std::string s;
  for (const MdBlock& b : doc.blocks)
    if (b.kind == MdBlockKind::heading) s += markdown_plain_text(b) + "\n";
  return s;
}

}  // namespace

TEST_CASE("no prediction is answered before it is asked, and the fold covers every restatement") {
  int checked = 0;
  for (const auto& l : predict_library().lessons) {
    for (const auto& q : l.quiz.questions) {
      if (q.kind != QuestionKind::predict) continue;
      const std::string key = l.entry.id + "/" + q.id;
      INFO("prediction " << key);
      const auto it = predict_give_aways().find(key);
      REQUIRE(it != predict_give_aways().end());  // a new prediction lists its give-away phrases
      for (int lang = 0; lang < 2; ++lang) {
        const MdDocument& doc = lang == 0 ? l.text_en : l.text_zh;
        const std::string& title = lang == 0 ? l.entry.title.en : l.entry.title.zh;
        const std::string& summary = lang == 0 ? l.entry.summary.en : l.entry.summary.zh;
        const std::string& answer = lang == 0 ? q.answered_by.en : q.answered_by.zh;
        std::vector<std::string> phrases = lang == 0 ? it->second.en : it->second.zh;
        phrases.push_back(answer);
        const auto all = markdown_predict_callouts(doc);
        const auto c =
            std::find_if(all.begin(), all.end(), [&](const MdCallout& m) { return m.id == q.id; });
        REQUIRE(c != all.end());
        // The fold runs to the end: Summary and Try this are inside it.
        CHECK(c->fold_end == doc.blocks.size());
        const std::string before = predict_block_text(doc, 0, c->block);
        const std::string seen_first = title + "\n" + summary + "\n" + predict_goal_text(doc) +
                                       "\n" + predict_headings_text(doc);
        for (const std::string& p : phrases) {
          INFO((lang == 0 ? "en" : "zh") << ": phrase \"" << p << "\"");
          CHECK(before.find(p) == std::string::npos);
          CHECK(seen_first.find(p) == std::string::npos);
        }
        CHECK(predict_block_text(doc, c->block + 1, c->fold_end).find(answer) != std::string::npos);
        ++checked;
      }
    }
  }
  CHECK(checked >= 2 * 11);  // ten lessons' predictions and lesson 6's measured one
}

TEST_CASE("a prediction on two orderings opens the sentences its prompt quotes") {
  // Lesson 1 asked about 我 喜欢 你 / 你 喜欢 我 and opened the English default sentences.
  for (const auto& l : predict_library().lessons)
    for (const auto& q : l.quiz.questions) {
      if (q.kind != QuestionKind::predict || q.preset.rfind("attention?", 0) != 0) continue;
      const AttentionLabSettings s = attention_from_preset(q.preset);
      if (s.compare != AttentionCompare::orderings) continue;
      INFO("lesson " << l.entry.id << ", question " << q.id << ", preset " << q.preset);
      for (const std::string& prompt : {q.prompt.en, q.prompt.zh}) {
        CHECK(prompt.find(s.sentence) != std::string::npos);
        CHECK(prompt.find(s.sentence_b) != std::string::npos);
      }
    }
}
