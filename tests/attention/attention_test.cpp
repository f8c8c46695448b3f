// Invariants of the attention lab's model: softmax rows sum to 1, the causal mask zeroes
// the future, permuting tokens without an encoding permutes the matrix, shifting every
// position changes nothing for relative encodings and something for absolute ones, the
// term split adds up, undefined learned positions are reported (not invented), presets
// round-trip. Tolerances reflect float32 scores (the kernel's precision).
#include <catch2/catch.hpp>
#include <cmath>

#include "core/attention/attention_kernel.hpp"
#include "core/attention/attention_lab.hpp"
#include "core/attention/demos.hpp"
#include "core/common/errors.hpp"
#include "core/labs.hpp"

using namespace poslab;

namespace {

const AttentionEncoding kAll[] = {AttentionEncoding::none,
                                  AttentionEncoding::sinusoidal,
                                  AttentionEncoding::sinusoidal_concat,
                                  AttentionEncoding::learned,
                                  AttentionEncoding::rope,
                                  AttentionEncoding::alibi,
                                  AttentionEncoding::t5,
                                  AttentionEncoding::swin,
                                  AttentionEncoding::sincos_2d,
                                  AttentionEncoding::elevation};

AttentionParams params_for(AttentionEncoding e, int heads = 3) {
  AttentionParams p;
  p.encoding = e;
  p.heads = heads;
  p.model_dim = 32;
  p.head_dim = 8;
  p.seed = 11;
  return p;
}

std::vector<std::string> words(int n) {
  const char* pool[] = {"the", "cat", "sat", "on",  "a",   "mat", "and",
                        "we",  "saw", "it",  "run", "far", "away"};
  std::vector<std::string> w;
  for (int i = 0; i < n; ++i) w.emplace_back(pool[i % 13]);
  return w;
}

}  // namespace

TEST_CASE("softmax rows sum to 1 and the causal mask zeroes the future, for every encoding") {
  INFO("kernel build: " << attention_kernel_isa());
  for (AttentionEncoding e : kAll) {
    for (bool causal : {false, true}) {
      for (bool grid : {false, true}) {
        AttentionParams p = params_for(e);
        p.causal = causal;
        const AttentionInput in =
            grid ? attention_grid_input(3, 4) : attention_sequence_input(words(12));
        const AttentionResult r = attention_compute(attention_build(p, in));
        REQUIRE(r.heads.size() == 3);
        for (size_t h = 0; h < r.heads.size(); ++h) {
          const auto& w = r.heads[h].weights;
          const auto& s = r.heads[h].scores;
          for (int i = 0; i < w.rows(); ++i) {
            INFO("encoding " << attention_encoding_name(e) << ", causal " << causal << ", grid "
                             << grid << ", head " << h << ", row " << i);
            CHECK(w.row(i).sum() == Approx(1.0).margin(1e-5));
            CHECK(w.row(i).minCoeff() >= 0);
            for (int j = i + 1; causal && j < w.cols(); ++j) {
              CHECK(w(i, j) == 0.0f);
              CHECK(std::isinf(s(i, j)));
              CHECK(s(i, j) < 0);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("without an encoding, permuting the tokens permutes the matrix") {
  const AttentionInput in = attention_sequence_input(words(10));
  const std::vector<int> orders[] = {attention_reversal(10), {3, 1, 4, 0, 9, 2, 6, 5, 8, 7}};
  for (const auto& order : orders) {
    AttentionParams p = params_for(AttentionEncoding::none);
    const AttentionComparison c = attention_permutation_demo(p, in, order);
    INFO("order starts " << order[0] << "," << order[1] << "; " << c.note);
    CHECK(c.max_abs_score_diff < 1e-5);
    CHECK(c.max_abs_weight_diff < 1e-6);
    // Positions switched off have the same effect as no encoding.
    p.encoding = AttentionEncoding::rope;
    p.use_position = false;
    CHECK(attention_permutation_demo(p, in, order).max_abs_score_diff < 1e-5);
    // With positions the same permutation changes the scores.
    p.use_position = true;
    CHECK(attention_permutation_demo(p, in, order).max_abs_score_diff > 1e-2);
  }
  // The seed's example: 我 喜欢 你 against 你 喜欢 我 gives the same pattern, re-indexed.
  AttentionParams p = params_for(AttentionEncoding::none);
  const AttentionComparison same =
      attention_compare_orderings(p, attention_sequence_input({"我", "喜欢", "你"}),
                                  attention_sequence_input({"你", "喜欢", "我"}));
  CHECK(same.align == std::vector<int>{2, 1, 0});
  CHECK(same.max_abs_score_diff < 1e-5);
  p.encoding = AttentionEncoding::sinusoidal;
  CHECK(attention_compare_orderings(p, attention_sequence_input({"我", "喜欢", "你"}),
                                    attention_sequence_input({"你", "喜欢", "我"}))
            .max_abs_score_diff > 1e-2);
  CHECK_THROWS_AS(attention_ordering_alignment({"a", "b"}, {"a", "c"}), InputError);
}

TEST_CASE("shifting every position: relative encodings unchanged, absolute ones change") {
  for (AttentionEncoding e : kAll) {
    for (double k : {1.0, 16.0, 1000.0}) {
      for (bool causal : {false, true}) {
        AttentionParams p = params_for(e);
        p.causal = causal;
        p.table_length = 4096;  // keep the shifted learned positions inside the table
        const bool grid = e == AttentionEncoding::swin || e == AttentionEncoding::sincos_2d;
        const AttentionInput in =
            grid ? attention_grid_input(3, 4) : attention_sequence_input(words(12));
        const AttentionComparison c = attention_shift_demo(p, in, k);
        INFO("encoding " << attention_encoding_name(e) << ", shift " << k << ", causal " << causal
                         << ": " << c.note);
        const EncodingKind kind = attention_encoding_kind(e);
        if (kind == EncodingKind::absolute) {
          CHECK(c.max_abs_score_diff > 1e-2);
        } else {
          // Relative (and position-free) logits: equal up to float32 rounding of the angles.
          CHECK(c.max_abs_score_diff < 2e-4 * (1 + k / 1000));
        }
        CHECK(c.incomparable_cells == (causal ? 3LL * 12 * 11 / 2 : 0LL));
      }
    }
  }
}

TEST_CASE("RoPE alone gives scores that depend only on key - query") {
  AttentionParams p = params_for(AttentionEncoding::rope);
  p.use_content = false;
  const AttentionResult r = attention_compute(attention_build(p, attention_count_input(20, 7)));
  for (size_t h = 0; h < r.heads.size(); ++h) {
    const auto& s = r.heads[h].scores;
    for (int i = 1; i < s.rows(); ++i) {
      for (int j = 1; j < s.cols(); ++j) {
        INFO("head " << h << ", cell " << i << "," << j);
        CHECK(s(i, j) == Approx(s(i - 1, j - 1)).margin(1e-5));
      }
    }
    // Ones vectors: the diagonal is sum over pairs 2 cos 0 / sqrt(Dh) = Dh / sqrt(Dh).
    CHECK(s(0, 0) == Approx(std::sqrt(8.0)).epsilon(1e-6));
  }
}

TEST_CASE("the listed hover terms sum to the computed logit, 1-D and 2-D inputs") {
  for (bool grid : {false, true}) {
    const AttentionInput in =
        grid ? attention_grid_input(4, 5, 2) : attention_sequence_input(words(11), 3);
    const int T = static_cast<int>(in.tokens.size());
    for (AttentionEncoding e : kAll) {
      for (int sw = 0; sw < 3; ++sw) {
        AttentionParams p = params_for(e);
        p.use_content = sw != 2;
        p.use_position = sw != 1;
        const AttentionModel m = attention_build(p, in);
        const AttentionResult r = attention_compute(m);
        for (int h = 0; h < p.heads; ++h)
          for (int i = 0; i < T; i += 3)
            for (int j = 0; j < T; j += 2) {
              const ScoreTerms t = attention_score_terms(m, h, i, j);
              double sum = 0;
              for (const NamedTerm& n : attention_score_term_list(m, t)) sum += n.value;
              const float logit = r.heads[h].scores(i, j);
              INFO("encoding " << attention_encoding_name(e) << ", grid " << grid << ", content "
                               << p.use_content << ", position " << p.use_position << ", head " << h
                               << ", cell " << i << "," << j);
              if (!std::isfinite(logit)) continue;  // masked or undefined: no sum to check
              CHECK(sum == Approx(logit).epsilon(1e-5).margin(1e-4));
            }
      }
    }
  }
}

TEST_CASE("the term split adds up to the logit") {
  const AttentionInput in = attention_sequence_input(words(9), 3);
  for (AttentionEncoding e : kAll) {
    for (int sw = 0; sw < 3; ++sw) {
      AttentionParams p = params_for(e);
      p.use_content = sw != 2;
      p.use_position = sw != 1;
      const AttentionModel m = attention_build(p, in);
      const AttentionResult r = attention_compute(m);
      for (int h = 0; h < p.heads; ++h) {
        for (int i = 0; i < 9; i += 2) {
          for (int j = 0; j < 9; j += 3) {
            const ScoreTerms t = attention_score_terms(m, h, i, j);
            INFO("encoding " << attention_encoding_name(e) << ", content " << p.use_content
                             << ", position " << p.use_position << ", head " << h << ", cell " << i
                             << "," << j);
            CHECK(t.total == Approx(r.heads[h].scores(i, j)).margin(1e-4));
            if (!p.use_position) {
              CHECK(t.content_position == 0);
              CHECK(t.position_position == 0);
              CHECK(t.bias == 0);
              CHECK(t.rotation == 0);
            }
            if (!p.use_content) CHECK(t.content_content == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("computing one head leaves the others empty and gives the same numbers") {
  const AttentionModel m =
      attention_build(params_for(AttentionEncoding::alibi, 5), attention_count_input(7));
  const AttentionResult all = attention_compute(m), one = attention_compute(m, nullptr, 3);
  REQUIRE(one.heads.size() == 5);
  CHECK(one.heads[0].scores.size() == 0);
  CHECK(one.heads[3].scores == all.heads[3].scores);
  CHECK(one.heads[3].weights == all.heads[3].weights);
  CHECK_THROWS_AS(attention_compute(m, nullptr, 5), InputError);
}

TEST_CASE("T5 is not scaled and the others are scaled by 1/sqrt(head_dim)") {
  AttentionParams p = params_for(AttentionEncoding::t5);
  CHECK(attention_scale(p) == 1.0);
  p.encoding = AttentionEncoding::alibi;
  p.head_dim = 64;
  CHECK(attention_scale(p) == Approx(0.125));
}

TEST_CASE("positions past the learned table are reported, not invented") {
  AttentionParams p = params_for(AttentionEncoding::learned);
  p.table_length = 8;
  const AttentionModel m = attention_build(p, attention_count_input(12));
  CHECK(m.missing == std::vector<int>{8, 9, 10, 11});
  const AttentionResult r = attention_compute(m);
  INFO(r.note);
  CHECK(r.note.find("no row in the learned table") != std::string::npos);
  const auto& s = r.heads[0].scores;
  CHECK(std::isnan(s(9, 2)));
  CHECK(std::isnan(s(2, 9)));
  CHECK(std::isfinite(s(2, 3)));
  // Row 1 sees the undefined keys 8..11: they are left out of its softmax (NaN cells), the
  // defined keys 0..7 share the weight, exactly as a softmax over those 8 logits.
  const auto& w = r.heads[0].weights;
  CHECK(std::isnan(w(1, 9)));
  double sum = 0, z = 0;
  for (int j = 0; j < 8; ++j) sum += w(1, j), z += std::exp(double(s(1, j)) - s(1, 0));
  CHECK(sum == Approx(1.0).margin(1e-5));
  CHECK(w(1, 3) == Approx(std::exp(double(s(1, 3)) - s(1, 0)) / z).epsilon(1e-5));
  CHECK(std::isnan(w(9, 2)));  // an undefined query has no weights at all
  CHECK(std::isnan(attention_score_terms(m, 0, 9, 2).total));
  // Under a causal mask, queries before the table's end never see undefined keys.
  p.causal = true;
  const AttentionResult rc = attention_compute(attention_build(p, attention_count_input(12)));
  CHECK(rc.heads[0].weights.row(7).sum() == Approx(1.0).margin(1e-5));
  CHECK(std::isnan(rc.heads[0].weights(8, 0)));
  // Content only: positions unused, nothing undefined.
  p.use_position = false;
  CHECK(attention_build(p, attention_count_input(12)).missing.empty());
  const ExtrapolationDemo d =
      attention_extrapolation_demo(params_for(AttentionEncoding::learned), 96);
  CHECK(d.result.missing.size() == 32);
  CHECK(std::isnan(d.row_entropy[0][70]));     // query without a row
  CHECK(std::isfinite(d.row_entropy[0][10]));  // trained rows keep their entropy
  CHECK(d.row_entropy[0][10] >= 0);
  CHECK(d.row_entropy[0][10] <= std::log(64.0) + 1e-9);
}

TEST_CASE("elevation bias in the model: same for all heads, zero downhill, within [-10, 0]") {
  AttentionParams p = params_for(AttentionEncoding::elevation);
  p.elevation_alpha = 5;
  p.terrain_max_m = 4000;
  const AttentionModel m = attention_build(p, attention_grid_input(6, 7));
  const RowMatrix b0 = attention_bias(m, 0);
  CHECK(b0 == attention_bias(m, 2));
  const double* h = m.terrain.data();
  for (int i = 0; i < 42; ++i) {
    for (int j = 0; j < 42; ++j) {
      INFO("query patch " << i << " (" << h[i] << " m), key patch " << j << " (" << h[j] << " m)");
      CHECK(b0(i, j) <= 0);
      CHECK(b0(i, j) >= -10);
      if (h[j] <= h[i])
        CHECK(b0(i, j) == 0);
      else
        CHECK(b0(i, j) == Approx(std::max(-10.0, -5 * (h[j] - h[i]) / 1000)));
    }
  }
  CHECK(b0.minCoeff() == -10);  // 4 km relief at alpha 5 reaches the clamp
}

TEST_CASE("bad parameters and inputs fail with messages naming the value") {
  AttentionParams p;
  p.heads = 0;
  CHECK_THROWS_WITH(attention_validate(p), Catch::Contains("heads = 0"));
  p = {};
  p.head_dim = 7;
  CHECK_THROWS_WITH(attention_validate(p), Catch::Contains("head_dim = 7"));
  p = {};
  p.encoding = AttentionEncoding::sincos_2d;
  p.model_dim = 34;
  CHECK_THROWS_WITH(attention_validate(p), Catch::Contains("multiple of 4"));
  CHECK_THROWS_WITH(attention_count_input(1000000), Catch::Contains("tokens = 1000000"));
  CHECK_THROWS_WITH(attention_encoding_from_name("fourier"),
                    Catch::Contains("encoding = \"fourier\": expected one of"));
}

TEST_CASE("attention presets round-trip and go through the lab dispatcher") {
  AttentionLabSettings s;
  CHECK(attention_to_preset(s) == "attention");
  s.params.encoding = AttentionEncoding::alibi;
  s.params.heads = 6;
  s.params.causal = true;
  s.sentence = "Réponse courte & 100% sûr?";
  s.source = AttentionSource::grid;
  s.grid_rows = 4;
  s.query_row = 2;
  s.compare = AttentionCompare::encodings;
  s.compare_encoding = AttentionEncoding::t5;
  s.demo = AttentionDemo::shift;
  s.shift = 2.5;
  const std::string text = attention_to_preset(s);
  INFO(text);
  const AttentionLabSettings back = attention_from_preset(text);
  CHECK(attention_to_preset(back) == text);
  CHECK(back.sentence == s.sentence);
  CHECK(back.params.heads == 6);
  CHECK(lab_preset_canonical(text) == text);
  CHECK_THROWS_WITH(attention_from_preset("attention?enc=fourier"),
                    Catch::Contains("attention.enc"));
  CHECK_THROWS_WITH(attention_from_preset("attention?heads=2&head=3"), Catch::Contains("head = 3"));
  CHECK_THROWS_WITH(attention_from_preset("attention?tokens=1000000"),
                    Catch::Contains("attention.tokens"));
  CHECK_THROWS_WITH(attention_from_preset("attention?rows=2&qrow=5"),
                    Catch::Contains("query patch (5, 3)"));
  CHECK_THROWS_WITH(attention_from_preset("attention?bogus=1"), Catch::Contains("bogus"));
}

TEST_CASE("the mixed-layout bug breaks RoPE's shift invariance, correct RoPE keeps it") {
  AttentionParams p = params_for(AttentionEncoding::rope);
  const AttentionInput in = attention_sequence_input(words(12));
  for (double k : {1.0, 16.0}) {
    p.rope_mixed = false;
    const AttentionComparison ok = attention_shift_demo(p, in, k);
    p.rope_mixed = true;
    const AttentionComparison bug = attention_shift_demo(p, in, k);
    INFO("shift " << k << ": " << bug.note);
    CHECK(ok.max_abs_score_diff < 1e-4);
    CHECK(bug.max_abs_score_diff > 1e-2);
    CHECK(bug.note.find("mixed-layout") != std::string::npos);
  }
  // The preset carries it, and the canonical form keeps it.
  CHECK(attention_from_preset("attention?enc=rope&rope_mixed=1").params.rope_mixed);
  CHECK(lab_preset_canonical("attention?enc=rope&rope_mixed=1").find("rope_mixed=1") !=
        std::string::npos);
}

TEST_CASE("RoPE extrapolation: the slowest pair passes the trained angles exactly from L on") {
  for (const int head_dim : {8, 16, 64, 128}) {
    for (const int L : {1, 20, 64}) {
      AttentionParams p = params_for(AttentionEncoding::rope);
      p.head_dim = head_dim;
      p.table_length = L;
      const int T = 2 * L + 7;
      INFO("head dim " << head_dim << ", L " << L << ", tokens " << T);
      const ExtrapolationDemo d = attention_extrapolation_demo(p, T);
      const RopeAngleReach& r = d.slowest_pair;
      const RopeParams rp = attention_rope_params(p);
      REQUIRE(r.pair == rope_num_pairs(rp) - 1);
      // Independent reference: theta_min = base^(-(R-2)/R), written out.
      const double theta = std::pow(rp.base, -static_cast<double>(head_dim - 2) / head_dim);
      CHECK(r.inv_freq == Approx(theta).epsilon(1e-13));
      CHECK(r.inv_freq == rope_inv_freq(rp).minCoeff());
      REQUIRE(r.angle.size() == static_cast<size_t>(T));
      CHECK(r.trained_max == Approx((L - 1) * theta).epsilon(1e-13));
      for (int m = 0; m < T; ++m) {
        INFO("position " << m);
        CHECK(r.angle[m] == Approx(m * theta).epsilon(1e-13).margin(1e-300));
        CHECK((r.angle[m] > r.trained_max) == (m >= L));
      }
    }
  }
  // Other encodings have no rotary pairs: nothing to plot.
  CHECK(attention_extrapolation_demo(params_for(AttentionEncoding::alibi), 80).slowest_pair.pair ==
        -1);
  CHECK(attention_extrapolation_demo(params_for(AttentionEncoding::learned), 80)
            .slowest_pair.angle.empty());
}

TEST_CASE(
    "ALiBi demo: one bias map per head (minus slope times distance) over at least 32 tokens") {
  for (const int heads : {1, 4, 6, 64}) {
    for (const int tokens : {3, 32, 40, 100}) {
      AttentionLabSettings s;
      s.params.heads = heads;
      s.source = AttentionSource::count;
      s.token_count = tokens;
      s.demo = AttentionDemo::alibi_slopes;
      INFO(heads << " heads, " << tokens << " tokens");
      const AttentionLabResult c = attention_lab_compute(s);
      const int T = tokens >= 32 && tokens <= 64 ? tokens : 32;
      REQUIRE(c.demo_heads.size() == static_cast<size_t>(heads));
      REQUIRE(c.slopes.size() == static_cast<size_t>(heads));
      for (int h = 0; h < heads; ++h) {
        REQUIRE(c.demo_heads[h].rows() == T);
        REQUIRE(c.demo_heads[h].cols() == T);
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j)
            CHECK(c.demo_heads[h](i, j) == Approx(-c.slopes[h] * std::abs(i - j)).margin(1e-12));
      }
      CHECK(c.demo_matrix == c.demo_heads[s.head]);  // the shown head is one of them
    }
  }
}
