// The length lab's data, training loop and evaluations (core/lm): the fortune text is
// cleaned and split as documented, batches are a pure function of (seed, step), a resumed run
// equals an unbroken one, and every evaluation agrees with the model's own forward.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/common/errors.hpp"
#include "core/lm/lm.hpp"
#include "core/lm/lm_data.hpp"
#include "core/lm/lm_eval.hpp"
#include "core/lm/lm_train.hpp"

using namespace poslab;
using namespace poslab::lm;

namespace {

LmConfig tiny(LmPosition p) {
  LmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 1;
  c.context = 16;
  c.position = p;
  c.t5_buckets = 8;
  c.t5_max_distance = 32;
  return c;
}

std::string fortune_file(int entries) {
  std::string s;
  for (int i = 0; i < entries; ++i) {
    if (i) s += "%\n";
    s += "\x1b[32mEntry " + std::to_string(i) + "\x1b[m: some words about things.\n";
  }
  return s;
}

}  // namespace

TEST_CASE("lm data strips ANSI codes and splits entries on lines %", "[lm]") {
  CHECK(lm_strip_ansi("\x1b[32m《感遇》\x1b[m\n") == "《感遇》\n");
  CHECK(lm_strip_ansi("a\x1b[1;33mb\x1b(Bc\x1b") == "abc");
  const auto e = lm_split_entries("one\n%\ntwo\r\n%\r\n%\n  \n%\nthree");
  REQUIRE(e.size() == 3);
  CHECK(e[0] == "one\n");
  CHECK(e[1] == "two\r\n");
  CHECK(e[2] == "three");
  CHECK(lm_split_entries("100% sure\n").size() == 1);  // only a line that is exactly "%"

  LmCorpusParams p;
  p.valid_every = 10;
  const LmCorpus c = lm_corpus_build({{"a", fortune_file(25)}, {"b", fortune_file(15)}}, p);
  CHECK(c.train_entries == 36);
  CHECK(c.valid_entries == 4);  // entries 9, 19, 29, 39
  const std::string valid(c.valid.begin(), c.valid.end());
  CHECK(valid.find("Entry 9:") != std::string::npos);
  CHECK(valid.find("Entry 19:") != std::string::npos);
  CHECK(valid.find("Entry 4:") != std::string::npos);  // file b's 5th is entry 29 overall
  CHECK(valid.find("Entry 8:") == std::string::npos);
  CHECK(valid.find('\x1b') == std::string::npos);
  CHECK_THROWS_AS(lm_corpus_build({{"a", fortune_file(3)}}, p, 100), InputError);
}

TEST_CASE("lm batches are a pure function of seed and step", "[lm]") {
  std::vector<uint8_t> text(1000);
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<uint8_t>(i * 7);
  const auto a = lm_batch(text, 4, 16, 3, 10);
  CHECK(a == lm_batch(text, 4, 16, 3, 10));
  CHECK(a != lm_batch(text, 4, 16, 3, 11));
  CHECK(a != lm_batch(text, 4, 16, 4, 10));
  REQUIRE(a.size() == 4 * 17);
  for (int b = 0; b < 4; ++b)  // each window is a contiguous piece of the text
    for (int t = 1; t <= 16; ++t)
      CHECK(static_cast<uint8_t>(a[b * 17 + t] - a[b * 17 + t - 1]) == 7);
  CHECK_THROWS_AS(lm_batch(text, 1, 1000, 1, 1), InputError);
  const auto off = lm_window_offsets(100, 9, 5);
  CHECK(off == std::vector<int64_t>{0, 22, 45, 67, 90});
}

TEST_CASE("lm training resumed equals training unbroken", "[lm]") {
  LmCorpusParams p;
  const LmCorpus corpus = lm_corpus_build({{"a", fortune_file(60)}}, p, 17);
  LmTrainSettings s;
  s.batch = 4;
  s.steps = 6;
  s.log_every = 3;
  s.valid_windows = 4;
  s.threads = 1;
  LmModel a(tiny(LmPosition::rope));
  a.init(1);
  nn::AdamWState oa;
  std::vector<LmTrainRow> rows;
  CHECK(lm_train(a, oa, s, corpus, nullptr, [&](const LmTrainRow& r) { rows.push_back(r); }));
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].step == 6);
  CHECK(rows[1].valid_bpb > 0);
  CHECK(rows[1].valid_bpb < 8.5);

  LmModel b(tiny(LmPosition::rope));
  b.init(1);
  nn::AdamWState ob;
  s.steps = 3;
  lm_train(b, ob, s, corpus, nullptr, {});
  s.steps = 6;
  lm_train(b, ob, s, corpus, nullptr, {});
  CHECK(b.params == a.params);

  std::atomic<bool> stop{true};
  LmModel c(tiny(LmPosition::rope));
  c.init(1);
  nn::AdamWState oc;
  CHECK_FALSE(lm_train(c, oc, s, corpus, &stop, {}));
  CHECK(oc.step == 0);
}

TEST_CASE("lm positions curve: the same to the last bit for any windows per step", "[lm]") {
  // The app's jobs step one window at a time (a bounded frame in the browser); poslab-cli
  // evaluates 8 at once (threads over the windows). A window's losses do not depend on the
  // windows beside it, and every sum keeps its order, so the curves are equal, not close.
  for (LmPosition pos : {LmPosition::rope, LmPosition::learned}) {
    INFO("position " << lm_position_name(pos));
    LmModel m(tiny(pos));
    m.init(5);
    std::vector<uint8_t> text(700);
    for (size_t i = 0; i < text.size(); ++i)
      text[i] = static_cast<uint8_t>("the cat, a hat"[i % 14]);
    const int T = 40, windows = 11;  // a full group of kLmMeanGroup windows and a part of one
    const LmScaling sc{RopeScaling::yarn, 2.0};
    const LmPositionCurve whole = lm_eval_positions(m, text, T, windows, sc);
    for (const auto& [batch, steps] : {std::pair{1, 11}, {3, 4}, {8, 2}}) {
      INFO("windows per step " << batch);
      LmPositionsRun run(m, text, T, windows, sc, batch);
      int n = 0;
      for (; !run.done(); ++n) {
        CHECK(run.windows_done() <= run.windows());
        run.step();
      }
      CHECK(n == steps);
      const LmPositionCurve c = run.take();
      CHECK(c.offsets == whole.offsets);
      CHECK(c.mean_bits == whole.mean_bits);
      CHECK(c.one_bits == whole.one_bits);
      CHECK(c.mean_bpb == whole.mean_bpb);
    }
  }
}

TEST_CASE("lm evaluations agree with the model's forward", "[lm]") {
  for (LmPosition pos : {LmPosition::rope, LmPosition::learned, LmPosition::t5}) {
    INFO("position " << lm_position_name(pos));
    LmModel m(tiny(pos));
    m.init(3);
    m.set_threads(1);
    std::vector<uint8_t> text(300);
    for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<uint8_t>("abcab d"[i % 7]);
    const int T = 40;  // past L = 16
    const LmScaling sc{RopeScaling::yarn, 4.0};
    const LmPositionCurve cv = lm_eval_positions(m, text, T, 5, sc);
    REQUIRE(cv.mean_bits.size() == T);
    REQUIRE(cv.offsets.size() == 5);
    // the mean of the curve is the mean loss; the one-window curve is window 0's losses
    double mean = 0;
    for (double v : cv.mean_bits) mean += v / T;
    CHECK(std::abs(mean - cv.mean_bpb) < 1e-6);
    m.set_scaling(sc);
    m.forward(text.data(), 1, T);
    for (int t = 0; t < T; ++t)
      CHECK(std::abs(cv.one_bits[t] - m.losses()[t] / std::numbers::ln2) < 1e-6);
    // per-byte scores of a text equal the losses of one window over it
    const std::vector<uint8_t> piece(text.begin(), text.begin() + T + 1);
    const LmTextScores s = lm_eval_text(m, piece, sc, 3);
    REQUIRE(s.bits.size() == T);
    for (int t = 0; t < T; ++t) {
      CHECK(std::abs(s.bits[t] - cv.one_bits[t]) < 1e-6);
      REQUIRE(s.top[t].size() == 3);
      CHECK(s.top[t][0].second >= s.top[t][1].second);
      CHECK(s.top[t][1].second >= s.top[t][2].second);
      // the target's probability is 2^-bits; if it is the top byte, they agree
      if (s.top[t][0].first == piece[t + 1])
        CHECK(std::abs(s.top[t][0].second - std::exp2(-s.bits[t])) < 1e-5);
    }
    // attention: all heads of all layers, rows sum to 1 over keys <= t
    const LmAttention at = lm_attention(m, piece, sc, -1, -1);
    REQUIRE(at.probs.size() == size_t(1) * 2 * (T + 1) * (T + 1));
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t <= T; ++t) {
        double sum = 0;
        for (int k = 0; k <= T; ++k) sum += at.probs[(size_t(h) * (T + 1) + t) * (T + 1) + k];
        CHECK(std::abs(sum - 1.0) < 1e-5);
      }
    CHECK_THROWS_AS(lm_attention(m, piece, sc, 1, 0), InputError);
    CHECK_THROWS_AS(lm_eval_text(m, {65}, sc, 3), InputError);
  }
  CHECK(lm_curve_at({1, 2, 3, 4, 5, 6, 7, 8}, 8, 16) == 7.5);  // w = 2: positions 6, 7
  CHECK(lm_curve_at({1, 2, 3}, 99, 8) == 3.0);                 // clamped to the curve
}
