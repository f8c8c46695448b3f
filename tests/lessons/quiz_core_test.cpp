// The quiz core against independent references: each numeric generator's answer is
// recomputed here from its parameters with the formulas of the spec (not the core's code),
// and the checker's tolerance, period and template rules are exercised directly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/common/errors.hpp"
#include "core/labs.hpp"
#include "core/position/encodings.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "core/quiz/quiz.hpp"
#include "core/rope/rope.hpp"

using namespace poslab;

namespace {

constexpr double kTwoPi = 6.283185307179586;

std::map<std::string, double> params_of(const NumericQuestion& q) {
  std::map<std::string, double> m;
  for (const auto& p : q.params) m[p.name] = p.value;
  return m;
}

// ALiBi from the paper's description: p = largest power of two <= n; slopes of p heads,
// then every second slope of the 2p list (1st, 3rd, ...) for the remaining heads.
double reference_alibi(int h, int n) {
  int p = 1;
  while (2 * p <= n) p *= 2;
  std::vector<double> slopes;
  for (int k = 1; k <= p; ++k) slopes.push_back(std::pow(2.0, -8.0 * k / p));
  for (int k = 1; slopes.size() < static_cast<size_t>(n); k += 2)
    slopes.push_back(std::pow(2.0, -8.0 * k / (2 * p)));
  return slopes[h - 1];
}

// T5 buckets for the defaults (32 buckets, max distance 128), written out from the spec.
int reference_t5(int rel, bool bidirectional) {
  int side = bidirectional ? 16 : 32, offset = 0, n;
  if (bidirectional) {
    offset = rel > 0 ? 16 : 0;
    n = std::abs(rel);
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int exact = side / 2;
  if (n < exact) return offset + n;
  const double v = std::log(double(n) / exact) / std::log(128.0 / exact) * (side - exact);
  return offset + std::min(exact + static_cast<int>(std::floor(v + 1e-12)), side - 1);
}

double wrap(double a) {
  return std::remainder(a, kTwoPi);
}

}  // namespace

TEST_CASE("numeric generators agree with independent formulas") {
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    for (const auto& gen : quiz_generator_names()) {
      const NumericQuestion q = quiz_generate(gen, seed);
      auto p = params_of(q);
      INFO("generator " << gen << ", seed " << seed << ", answer " << q.answer);
      if (gen == "rope_angle") {
        CHECK(std::abs(wrap(q.answer - p["m"] * std::pow(p["base"], -2 * p["i"] / p["d"]))) < 1e-9);
      } else if (gen == "rope_wavelength") {
        CHECK(q.answer == Approx(kTwoPi * std::pow(p["base"], 2 * p["i"] / p["d"])).epsilon(1e-12));
      } else if (gen == "rope_pi_angle") {
        CHECK(std::abs(wrap(q.answer -
                            p["m"] / p["s"] * std::pow(p["base"], -2 * p["i"] / p["d"]))) < 1e-9);
      } else if (gen == "rope_reencode_angle") {
        CHECK(std::abs(wrap(q.answer -
                            (p["q"] - p["p"]) * std::pow(p["base"], -2 * p["i"] / p["d"]))) < 1e-9);
      } else if (gen == "ntk_base") {
        CHECK(q.answer ==
              Approx(p["base"] * std::pow(p["s"], p["d"] / (p["d"] - 2))).epsilon(1e-12));
      } else if (gen == "yarn_last_kept_pair") {
        // Reference code: low = floor(d ln(L / (2 pi beta_fast)) / (2 ln b)), beta_fast = 32.
        const double low =
            std::floor(p["d"] * std::log(p["L"] / (kTwoPi * 32)) / (2 * std::log(p["base"])));
        CHECK(q.answer == std::max(0.0, low));
      } else if (gen == "yarn_logit_scale") {
        const double m = 0.1 * std::log(p["s"]) + 1;
        CHECK(q.answer == Approx(m * m).epsilon(1e-12));
      } else if (gen == "sinusoid_value") {
        const int j = static_cast<int>(p["j"]);
        const double angle = p["pos"] / std::pow(10000.0, (j / 2) * 2 / p["d"]);
        CHECK(q.answer == Approx(j % 2 ? std::cos(angle) : std::sin(angle)).margin(1e-12));
      } else if (gen == "alibi_slope") {
        CHECK(q.answer == Approx(reference_alibi(int(p["h"]), int(p["n"]))).epsilon(1e-12));
      } else if (gen == "t5_bucket_encoder") {
        CHECK(q.answer == reference_t5(int(p["rel"]), true));
      } else if (gen == "t5_bucket_decoder") {
        CHECK(q.answer == reference_t5(int(p["rel"]), false));
      } else if (gen == "swin_index") {
        CHECK(q.answer == (p["dh"] + p["wh"] - 1) * (2 * p["ww"] - 1) + (p["dw"] + p["ww"] - 1));
        CHECK(q.answer >= 0);
        CHECK(q.answer < p["size"]);
      } else if (gen == "half_split_partner") {
        const int d = int(p["d"]), j = int(p["j"]);
        CHECK(q.answer == (j < d / 2 ? j + d / 2 : j - d / 2));
      } else if (gen == "kv_window_index") {
        CHECK(q.answer == p["p"] - p["t"] * p["k"]);
        CHECK(q.answer >= 0);
      } else if (gen == "stitch_shift") {
        const int j = int(p["j"]), r = int(p["r"]);
        const int old = j < r ? int(p["start"]) + j : j - r;
        CHECK(q.answer == j - old);
      } else if (gen == "wm_action_index") {
        CHECK(q.answer == 2 * p["t"] + 1);
      } else if (gen == "wm_index_after_drop") {
        CHECK(q.answer == 2 * (p["t"] - p["k"]) + 1);
        CHECK(q.answer >= 1);
      } else if (gen == "wm_pair_angle") {
        CHECK(std::abs(wrap(q.answer - 6 * std::pow(p["base"], -2 * p["i"] / p["d"]))) < 1e-9);
      } else if (gen == "wm_last_visible_key") {
        CHECK(q.answer == p["c"] + p["j"]);
        CHECK(q.answer <= p["last"]);
      } else {
        FAIL("no independent reference for generator " << gen << ": add one here");
      }
    }
  }
}

TEST_CASE("known values from the spec") {
  // ALiBi, 8 heads: 1/2 ... 1/256.
  CHECK(reference_alibi(1, 8) == 0.5);
  CHECK(reference_alibi(8, 8) == 1.0 / 256);
  // T5 decoder: bucket 17 covers 19-20 (not 19-23), 18 starts at 21.
  CHECK(reference_t5(-18, false) == 16);
  CHECK(reference_t5(-19, false) == 17);
  CHECK(reference_t5(-20, false) == 17);
  CHECK(reference_t5(-21, false) == 18);
  // YaRN L = 4096, s = 16, d = 128, b = 1e4: kept up to pair 20 (the rope CLI test's value).
  bool found = false;
  for (std::uint64_t seed = 0; seed < 2000 && !found; ++seed) {
    const NumericQuestion q = quiz_generate("yarn_last_kept_pair", seed);
    auto p = params_of(q);
    if (p["d"] == 128 && p["base"] == 10000 && p["L"] == 4096) {
      CHECK(q.answer == 20);
      found = true;
    }
  }
  CHECK(found);
}

TEST_CASE("seeds reproduce questions and differ between attempts") {
  for (const auto& gen : quiz_generator_names()) {
    INFO("generator " << gen);
    const NumericQuestion a = quiz_generate(gen, 42), b = quiz_generate(gen, 42);
    CHECK(a.answer == b.answer);
    std::set<double> answers;
    for (std::uint64_t s = 0; s < 50; ++s) answers.insert(quiz_generate(gen, s).answer);
    CHECK(answers.size() > 3);  // fresh parameters on each attempt
  }
  CHECK_THROWS_AS(quiz_generate("no_such_generator", 0), InputError);
}

TEST_CASE("the numeric checker honours tolerance and period") {
  NumericQuestion q;
  q.answer = 1.0;
  q.abs_tol = 0.01;
  q.period = kTwoPi;
  CHECK(quiz_check_numeric(q, 1.0 + 10 * kTwoPi).correct);
  CHECK(quiz_check_numeric(q, 1.0 - 3 * kTwoPi + 0.005).correct);
  CHECK_FALSE(quiz_check_numeric(q, 1.02).correct);
  CHECK_FALSE(quiz_check_numeric(q, NAN).correct);
  q.period = 0;
  q.abs_tol = 0;
  q.rel_tol = 0.01;
  q.answer = 1000;
  CHECK(quiz_check_numeric(q, 1009).correct);
  CHECK_FALSE(quiz_check_numeric(q, 1011).correct);
}

TEST_CASE("templates fill parameters and reject unknown placeholders") {
  NumericQuestion q;
  q.generator = "test";
  q.params = {{"m", 5000}, {"base", 1e6}, {"x", 0.25}};
  CHECK(quiz_fill_template("m={m}, b={base}, x={x}, {{literal}", q) ==
        "m=5000, b=1000000, x=0.25, {literal}");
  CHECK_THROWS_WITH(quiz_fill_template("{nope}", q),
                    Catch::Contains("{nope}") && Catch::Contains("m, base, x"));
  CHECK_THROWS_AS(quiz_fill_template("{m", q), InputError);
}

TEST_CASE("choice parsing and grading") {
  Question q;
  q.id = "t";
  q.kind = QuestionKind::multiple;
  q.options.resize(4);
  q.options[0].correct = q.options[2].correct = true;
  CHECK(quiz_parse_choices("A, c", 4) == std::vector<int>{0, 2});
  CHECK(quiz_parse_choices("3,1", 4) == std::vector<int>{0, 2});
  CHECK_THROWS_WITH(quiz_parse_choices("A,E", 4), Catch::Contains("\"E\""));
  CHECK_THROWS_AS(quiz_parse_choices("", 4), InputError);
  CHECK(quiz_check_choice(q, {0, 2}).correct);
  const ChoiceVerdict v = quiz_check_choice(q, {0, 1});
  CHECK_FALSE(v.correct);
  CHECK(v.missed == std::vector<int>{2});
  CHECK(v.wrong == std::vector<int>{1});
  CHECK_THROWS_AS(quiz_check_choice(q, {7}), InputError);
  q.kind = QuestionKind::single;
  CHECK_THROWS_WITH(quiz_check_choice(q, {0, 2}), Catch::Contains("exactly one"));
  q.kind = QuestionKind::open;
  CHECK_THROWS_AS(quiz_check_choice(q, {0}), InputError);
}

TEST_CASE("scores and completion follow the answers") {
  Quiz quiz;
  Question c;
  c.id = "c";
  c.kind = QuestionKind::single;
  c.options.resize(2);
  c.options[1].correct = true;
  Question n;
  n.id = "n";
  n.kind = QuestionKind::numeric;
  n.generator = "alibi_slope";
  Question o;
  o.id = "o";
  o.kind = QuestionKind::open;
  o.checklist.resize(2);
  quiz.questions = {c, n, o};
  quiz.checklist.resize(1);

  LessonProgress lp;
  CHECK(quiz_lesson_score(quiz, lp).points == 0);
  CHECK_FALSE(quiz_answer_choice(lp.answers["c"], c, {0}).correct);
  CHECK(quiz_answer_choice(lp.answers["c"], c, {1}).correct);
  CHECK(lp.answers["c"].attempts == 2);
  AnswerRecord& rn = lp.answers["n"];
  quiz_retry(rn, 77);
  const double right = quiz_generate("alibi_slope", 77).answer;
  CHECK(quiz_answer_numeric(rn, n, right).correct);
  quiz_answer_open(lp.answers["o"], o, "my answer", {true, false});
  LessonScore s = quiz_lesson_score(quiz, lp);
  CHECK(s.total == 3);
  CHECK(s.answered == 3);
  // c right on its second try: half a point; n right at once: 1; o half ticked: 0.5.
  CHECK(s.points == Approx(2.0));
  CHECK_FALSE(quiz_update_completion(quiz, lp));  // the lesson checklist is not ticked yet
  lp.checklist = {true};
  CHECK(quiz_update_completion(quiz, lp));
  // A retry resets the attempt but a completed lesson stays completed.
  quiz_retry(lp.answers["c"], 0);
  CHECK(quiz_lesson_score(quiz, lp).points == Approx(1.5));
  CHECK(quiz_update_completion(quiz, lp));
  // Bad input records nothing.
  const int attempts = lp.answers["c"].attempts;
  CHECK_THROWS_AS(quiz_answer_choice(lp.answers["c"], c, {5}), InputError);
  CHECK(lp.answers["c"].attempts == attempts);
}

TEST_CASE("lessons panel presets round-trip and reject bad values") {
  LessonsLabSettings s;
  CHECK(lessons_to_preset(s) == "lessons");
  s.lesson = "03-rope";
  s.language = Language::zh;
  s.view = LessonsView::quiz;
  const std::string text = lessons_to_preset(s);
  CHECK(text == "lessons?lesson=03-rope&lang=zh&view=quiz");
  const LessonsLabSettings back = lessons_from_preset(text);
  CHECK(back.lesson == s.lesson);
  CHECK(back.language == s.language);
  CHECK(back.view == s.view);
  CHECK(lab_preset_canonical("lessons?lang=zh&lesson=03-rope") == "lessons?lesson=03-rope&lang=zh");
  CHECK_THROWS_WITH(lessons_from_preset("lessons?lang=fr"), Catch::Contains("lessons.lang"));
  CHECK_THROWS_WITH(lessons_from_preset("lessons?lesson=../etc"), Catch::Contains("a-z, 0-9"));
  CHECK_THROWS_WITH(lessons_from_preset("lessons?page=2"), Catch::Contains("page"));
}

// ---- quiz mechanics: shuffled options, reveal rule, mistake recognisers ------------------

namespace {

Question four_options(const std::string& id, QuestionKind kind = QuestionKind::single) {
  Question q;
  q.id = id;
  q.kind = kind;
  for (int i = 0; i < 4; ++i) {
    ChoiceOption o;
    o.text.en = "option " + std::to_string(i);
    o.correct = kind == QuestionKind::multiple ? (i == 1 || i == 3) : i == 2;
    q.options.push_back(o);
  }
  return q;
}

// The wrong answer each named mistake gives, computed here from the parameters the way a
// learner making that mistake would (not from the core's table of mistakes).
std::map<std::string, double> reference_mistakes(const std::string& gen,
                                                 std::map<std::string, double> p, double answer) {
  std::map<std::string, double> m;
  const double two_i_over_d = 2 * p["i"] / p["d"];
  if (gen == "rope_angle") {
    m["rope_i_over_d"] = p["m"] * std::pow(p["base"], -p["i"] / p["d"]);
    m["rope_angle_per_dim"] = p["m"] * std::pow(p["base"], -2 * two_i_over_d);
  } else if (gen == "rope_wavelength") {
    m["wavelength_no_2pi"] = std::pow(p["base"], two_i_over_d);
    m["wavelength_i_over_d"] = kTwoPi * std::pow(p["base"], p["i"] / p["d"]);
  } else if (gen == "rope_pi_angle") {
    m["pi_multiplied"] = p["m"] * p["s"] * std::pow(p["base"], -two_i_over_d);
    m["pi_not_scaled"] = p["m"] * std::pow(p["base"], -two_i_over_d);
  } else if (gen == "rope_reencode_angle") {
    m["reencode_sign"] = (p["p"] - p["q"]) * std::pow(p["base"], -two_i_over_d);
    m["reencode_new_only"] = p["q"] * std::pow(p["base"], -two_i_over_d);
  } else if (gen == "ntk_base") {
    m["ntk_bs"] = p["base"] * p["s"];
    m["ntk_exponent_inverted"] = p["base"] * std::pow(p["s"], (p["d"] - 2) / p["d"]);
  } else if (gen == "yarn_last_kept_pair") {
    const double k = p["d"] / (2 * std::log(p["base"]));
    m["yarn_ceil"] = std::ceil(k * std::log(p["L"] / (kTwoPi * 32)));
    m["yarn_alpha_bound"] = std::ceil(k * std::log(p["L"] / kTwoPi));
  } else if (gen == "yarn_logit_scale") {
    m["yarn_mscale_once"] = 0.1 * std::log(p["s"]) + 1;
    m["yarn_log10"] = std::pow(0.1 * std::log10(p["s"]) + 1, 2);
  } else if (gen == "half_split_partner") {
    const int j = int(p["j"]);
    m["partner_interleaved"] = j % 2 == 0 ? j + 1 : j - 1;
  } else if (gen == "sinusoid_value") {
    const int j = int(p["j"]);
    const double angle = p["pos"] / std::pow(10000.0, (j / 2) * 2 / p["d"]);
    const double angle_2j = p["pos"] / std::pow(10000.0, 2 * j / p["d"]);
    m["sinusoid_swapped"] = j % 2 ? std::sin(angle) : std::cos(angle);
    m["sinusoid_2j"] = j % 2 ? std::cos(angle_2j) : std::sin(angle_2j);
  } else if (gen == "alibi_slope") {
    m["alibi_power_of_two"] = std::pow(2.0, -8 * p["h"] / p["n"]);
    m["alibi_no_h"] = std::pow(2.0, -8 / p["n"]);
  } else if (gen == "t5_bucket_encoder") {
    const int rel = int(p["rel"]);
    if (rel > 0) m["t5_plus16_missing"] = reference_t5(rel, true) - 16;
    if (rel < 0) m["t5_plus16_wrong_side"] = reference_t5(rel, true) + 16;
    m["t5_decoder_formula"] = reference_t5(-std::abs(rel), false);
  } else if (gen == "t5_bucket_decoder") {
    m["t5_encoder_formula"] = reference_t5(int(p["rel"]), true);
  } else if (gen == "swin_index") {
    m["swin_axes_swapped"] = (p["dw"] + p["ww"] - 1) * (2 * p["wh"] - 1) + (p["dh"] + p["wh"] - 1);
    m["swin_no_shift"] = p["dh"] * (2 * p["ww"] - 1) + p["dw"];
  } else if (gen == "kv_window_index") {
    m["kv_steps_not_tokens"] = p["p"] - p["k"];
  } else if (gen == "stitch_shift") {
    m["stitch_sign"] = -answer;
  } else if (gen == "wm_action_index") {
    m["wm_state_index"] = 2 * p["t"];
    m["wm_step_not_token"] = p["t"];
  } else if (gen == "wm_index_after_drop") {
    m["wm_drop_tokens_not_steps"] = 2 * p["t"] + 1 - p["k"];
  } else if (gen == "wm_pair_angle") {
    m["wm_steps_not_tokens"] = 3 * std::pow(p["base"], -2 * p["i"] / p["d"]);
    m["wm_pair_sign"] = -6 * std::pow(p["base"], -2 * p["i"] / p["d"]);
  } else if (gen == "wm_last_visible_key") {
    m["wm_mask_oldest"] = p["j"];
  }
  return m;
}

}  // namespace

TEST_CASE("option order is a reproducible permutation that moves the answer around") {
  const Question q = four_options("q-shuffle");
  std::map<int, int> correct_at;  // shown position of the correct option -> count
  std::set<std::vector<int>> orders;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    INFO("seed " << seed);
    const std::vector<int> order = quiz_option_order(q, seed);
    REQUIRE(order == quiz_option_order(q, seed));  // reproducible
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(sorted == std::vector<int>{0, 1, 2, 3});  // a permutation
    orders.insert(order);
    // Letters as shown map back to the declared options, and grading follows them.
    const std::vector<int> shown_right = quiz_declared_to_shown(order, quiz_correct_options(q));
    REQUIRE(shown_right.size() == 1);
    correct_at[shown_right[0]] += 1;
    CHECK(quiz_check_choice(q, quiz_shown_to_declared(order, shown_right)).correct);
    for (int k = 0; k < 4; ++k)
      if (k != shown_right[0])
        CHECK_FALSE(quiz_check_choice(q, quiz_shown_to_declared(order, {k})).correct);
  }
  CHECK(orders.size() == 24);  // every permutation of 4 occurs
  for (int k = 0; k < 4; ++k) {
    INFO("correct option shown at position " << k);
    CHECK(correct_at[k] > 400);  // 500 expected of 2000; uniform within sampling noise
    CHECK(correct_at[k] < 600);
  }
  // Another question with the same seed gets its own order (the id keys the stream).
  int same = 0;
  const Question other = four_options("q-other");
  for (std::uint64_t seed = 1; seed <= 200; ++seed)
    same += quiz_option_order(q, seed) == quiz_option_order(other, seed) ? 1 : 0;
  CHECK(same < 40);
}

TEST_CASE("multiple choice through a shuffled order names missed and wrong options") {
  const Question q = four_options("q-multi", QuestionKind::multiple);  // 1 and 3 are right
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const std::vector<int> order = quiz_option_order(q, seed);
    const std::vector<int> right = quiz_declared_to_shown(order, {1, 3});
    INFO("seed " << seed);
    CHECK(quiz_check_choice(q, quiz_shown_to_declared(order, right)).correct);
    const ChoiceVerdict half = quiz_check_choice(q, quiz_shown_to_declared(order, {right[0]}));
    CHECK_FALSE(half.correct);
    REQUIRE(half.missed.size() == 1);
    CHECK(quiz_declared_to_shown(order, half.missed) == std::vector<int>{right[1]});
    CHECK(half.wrong.empty());
  }
  CHECK_THROWS_AS(quiz_shown_to_declared({0, 1, 2, 3}, {4}), InputError);
}

TEST_CASE("explanations open on a right answer, on request, or after the last try") {
  const Question single = four_options("q-reveal");
  CHECK(quiz_tries_before_reveal(single) == 2);
  CHECK_FALSE(quiz_reveal_explanations(single, false, 1, false));  // first wrong try: no
  CHECK(quiz_reveal_explanations(single, false, 1, true));         // asked for
  CHECK(quiz_reveal_explanations(single, false, 2, false));        // last try
  CHECK(quiz_reveal_explanations(single, true, 1, false));         // right at once
  Question predict = four_options("q-predict", QuestionKind::predict);
  CHECK(quiz_reveal_explanations(predict, false, 1, false));  // the lab shows it anyway
}

TEST_CASE("a wrong try names no option before the reveal, and a retry scores below a first try") {
  // Before the reveal no kind names an option ("Missed: B, C" would be the answer, and a
  // retry copying it would score); multiple choice says only how many options are right.
  for (QuestionKind kind : {QuestionKind::single, QuestionKind::spot_error, QuestionKind::predict,
                            QuestionKind::multiple}) {
    const Question q = four_options("k", kind);  // multiple: options 1 and 3 right
    INFO("kind " << static_cast<int>(kind));
    for (const std::vector<int>& chosen : std::vector<std::vector<int>>{{0}, {3}, {1}, {0, 2}}) {
      if (kind != QuestionKind::multiple && chosen.size() > 1) continue;
      const ChoiceVerdict v = quiz_check_choice(q, chosen);
      REQUIRE_FALSE(v.correct);
      const ChoiceFeedback before = quiz_choice_feedback(q, v, false);
      CHECK(before.missed.empty());
      CHECK(before.wrong.empty());
      CHECK(before.right_count == (kind == QuestionKind::multiple ? 2 : 0));
      const ChoiceFeedback after = quiz_choice_feedback(q, v, true);
      CHECK(after.missed == v.missed);
      CHECK(after.wrong == v.wrong);
      CHECK(after.right_count == 0);
    }
  }
  CHECK(quiz_points(true, 1) == 1.0);
  CHECK(quiz_points(true, 2) == kRetryPoints);
  CHECK(quiz_points(true, 5) == kRetryPoints);
  CHECK(quiz_points(false, 1) == 0.0);
  CHECK(kRetryPoints > 0.0);
  CHECK(kRetryPoints < 1.0);
  // Recorded answers score the same way: wrong, then right = a retry.
  const Question q = four_options("q-points");
  AnswerRecord first, retried;
  quiz_answer_choice(first, q, {2});
  quiz_answer_choice(retried, q, {0});
  quiz_retry(retried, retried.seed);
  quiz_answer_choice(retried, q, {2});
  CHECK(quiz_question_score(q, first) == 1.0);
  CHECK(quiz_question_score(q, retried) == kRetryPoints);
}

TEST_CASE(
    "each common mistake is recognised from an answer made that way, never from the right one") {
  std::map<std::string, int> recognised;  // mistake id -> seeds where it was checked
  for (const auto& gen : quiz_generator_names()) {
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      const NumericQuestion q = quiz_generate(gen, seed);
      INFO("generator " << gen << ", seed " << seed << ", answer " << q.answer);
      CHECK(quiz_recognise_mistakes(q, q.answer).empty());
      const double tol = quiz_numeric_tolerance(q);
      for (const auto& [id, wrong] : reference_mistakes(gen, params_of(q), q.answer)) {
        INFO("mistake " << id << " gives " << wrong);
        double diff = wrong - q.answer;
        if (q.period > 0) diff = std::remainder(diff, q.period);
        if (std::abs(diff) <= 2 * tol) continue;  // this mistake happens to give the right answer
        const auto ids = quiz_recognise_mistakes(q, wrong);
        CHECK(std::find(ids.begin(), ids.end(), id) != ids.end());
        recognised[id] += 1;
      }
      // A number that is merely wrong is not called a known mistake.
      const double unrelated = q.integer ? q.answer + 997 : q.answer * 1.37 + 0.123;
      bool explained = false;
      for (const auto& [id, wrong] : reference_mistakes(gen, params_of(q), q.answer))
        explained = explained || std::abs(wrong - unrelated) <= 2 * tol;
      if (!explained && !(q.period > 0)) CHECK(quiz_recognise_mistakes(q, unrelated).empty());
    }
  }
  // Every mistake the core knows is exercised here, including the five of issue 15.
  std::set<std::string> known;
  for (const auto& gen : quiz_generator_names())
    for (std::uint64_t seed = 0; seed < 300; ++seed)
      for (const auto& m : quiz_generate(gen, seed).mistakes) known.insert(m.id);
  for (const auto& id : known) {
    INFO("mistake " << id);
    CHECK(recognised[id] > 0);
  }
  for (const char* id :
       {"alibi_power_of_two", "t5_plus16_missing", "ntk_bs", "yarn_mscale_once", "reencode_sign"})
    CHECK(known.count(id) == 1);
}

TEST_CASE("steps fill explanations but never prompts") {
  const NumericQuestion q = quiz_generate("rope_angle", 5);
  CHECK_THROWS_AS(quiz_fill_template("{theta}", q), InputError);
  const std::string filled = quiz_fill_template("θ = {theta}, reduced {reduced}", q, true);
  CHECK(filled.find('{') == std::string::npos);
  double reduced = -1;
  for (const auto& s : q.steps)
    if (s.name == "reduced") reduced = s.value;
  CHECK(reduced >= 0);
  CHECK(reduced < kTwoPi);
  CHECK(std::abs(std::remainder(reduced - q.answer, kTwoPi)) < 1e-9);
}

TEST_CASE("the numbers worked out in the lessons agree with the core") {
  // Lesson 7: T5 buckets (32 buckets, max_distance 128), encoder and decoder.
  CHECK(t5_bucket(37, true, 32, 128) == 28);
  CHECK(t5_bucket(-37, true, 32, 128) == 12);
  CHECK(t5_bucket(-5, true, 32, 128) == 5);
  CHECK(t5_bucket(-50, false, 32, 128) == 24);
  CHECK(t5_bucket(3, false, 32, 128) == 0);
  for (int n : {16, 17, 18}) CHECK(t5_bucket(-n, false, 32, 128) == 16);
  for (int n : {19, 20}) CHECK(t5_bucket(-n, false, 32, 128) == 17);
  for (int n : {21, 22, 23}) CHECK(t5_bucket(-n, false, 32, 128) == 18);
  // Lesson 7: ALiBi slopes of 6 heads, and the tempting wrong 2^(-8h/6) of head 1.
  const std::vector<double> six = alibi_slopes(6);
  const std::vector<double> want{1 / 4.0, 1 / 16.0, 1 / 64.0, 1 / 256.0, 1 / 2.0, 1 / 8.0};
  REQUIRE(six.size() == want.size());
  for (size_t h = 0; h < want.size(); ++h) CHECK(six[h] == Approx(want[h]).epsilon(1e-12));
  CHECK(std::pow(2.0, -8.0 / 6) == Approx(0.397).margin(5e-4));
  // Lesson 7: Swin, 7 x 7 window, offset (-1, 2).
  CHECK(swin_relative_index(-1, 2, 7, 7) == 73);
  // Lesson 3: wavelengths for d = 128, b = 10 000; pair 7 of d = 16 at position 100.
  RopeParams p;
  p.head_dim = 128;
  p.base = 10000;
  const Eigen::VectorXd lambda = rope_wavelengths(rope_inv_freq_original(p));
  CHECK(lambda[0] == Approx(kTwoPi).epsilon(1e-12));
  CHECK(lambda[20] == Approx(112).margin(0.5));
  CHECK(lambda[63] == Approx(54000).epsilon(0.01));
  CHECK(100 * std::pow(10000.0, -14.0 / 16) == Approx(0.03).margin(0.002));
  // Lesson 6: YaRN s = 4 on L = 512 (d = 128, b = 10 000) keeps pairs 0-6 and fully
  // interpolates pairs from 31 on.
  p.scaling = RopeScaling::yarn;
  p.factor = 4;
  p.original_context = 512;
  const Eigen::VectorXd keep = rope_yarn_keep(p);
  for (int i = 0; i < keep.size(); ++i) {
    INFO("pair " << i << ", gamma " << keep[i]);
    if (i <= 6) CHECK(keep[i] == 1.0);
    if (i >= 31) CHECK(keep[i] == 0.0);
    if (i > 6 && i < 31) CHECK((keep[i] > 0.0 && keep[i] < 1.0));
  }
  // Lesson 3: float32 keeps about 6e-8 relative precision; whole radians go past ~1.7e7.
  CHECK(std::ldexp(1.0, -24) == Approx(6e-8).epsilon(0.01));
  CHECK(1.0 / std::ldexp(1.0, -24) == Approx(1.7e7).epsilon(0.02));
  // Lesson 3: the last pair is b^((d-2)/d) times slower: 8 660 for d = 128, 3 162 for d = 16.
  CHECK(std::pow(10000.0, 126.0 / 128) == Approx(8660).margin(0.5));
  CHECK(std::pow(10000.0, 14.0 / 16) == Approx(3162).margin(0.5));
  // Lesson 7: the last T5 bucket starts at 91 (encoder) and 113 (decoder), defaults.
  CHECK(t5_bucket(90, true, 32, 128) == 30);
  CHECK(t5_bucket(91, true, 32, 128) == 31);
  CHECK(t5_bucket(-112, false, 32, 128) == 30);
  CHECK(t5_bucket(-113, false, 32, 128) == 31);
}

TEST_CASE("the worked examples of issue 28 agree with the core") {
  // Lesson 2: PE(7, 4) with d_model = 16 is the quiz's seed 7; dimension 5 takes the cosine.
  const NumericQuestion sq = quiz_generate("sinusoid_value", 7);
  REQUIRE(params_of(sq)["d"] == 16);
  REQUIRE(params_of(sq)["j"] == 4);
  REQUIRE(params_of(sq)["pos"] == 7);
  CHECK(sq.answer == Approx(0.6442).margin(5e-5));
  CHECK(std::cos(7 / std::pow(10000.0, 4.0 / 16)) == Approx(0.7648).margin(5e-5));
  // Lesson 3: d = 128, b = 1e6, pair 1, m = 3988; the angle's error when theta is rounded.
  RopeParams r3;
  r3.head_dim = 128;
  r3.base = 1e6;
  const double theta = rope_inv_freq(r3)[1];
  const double angle = rope_angles(r3, {3988.0})(0, 1);
  CHECK(theta == Approx(0.8058422).margin(5e-8));
  CHECK(angle == Approx(3213.6986).margin(5e-5));
  CHECK(511 * kTwoPi == Approx(3210.7077).margin(5e-5));
  CHECK(angle - 511 * kTwoPi == Approx(2.9910).margin(5e-5));
  CHECK(std::abs(3988 * 0.806 - angle) == Approx(0.63).margin(0.005));
  CHECK(std::abs(3988 * 0.8058 - angle) == Approx(0.17).margin(0.005));
  CHECK(std::abs(3988 * 0.80584 - angle) == Approx(0.0087).margin(5e-5));
  CHECK(std::abs(3988 * 0.8058422 - angle) == Approx(0.00005).margin(5e-6));
  // Lesson 4: one pair (theta = 1), q = (2, 1), k = (1, 1); the score depends on n - m only.
  RopeParams r2;
  r2.head_dim = 2;
  Eigen::VectorXd q(2), k(2);
  q << 2, 1;
  k << 1, 1;
  const Eigen::VectorXd q5 = rope_apply(r2, q, 5), k8 = rope_apply(r2, k, 8);
  CHECK(q5[0] == Approx(1.5262).margin(5e-5));
  CHECK(q5[1] == Approx(-1.6342).margin(5e-5));
  CHECK(k8[0] == Approx(-1.1349).margin(5e-5));
  CHECK(k8[1] == Approx(0.8439).margin(5e-5));
  const Eigen::VectorXd q100 = rope_apply(r2, q, 100), k103 = rope_apply(r2, k, 103);
  CHECK(q100[0] == Approx(2.2310).margin(5e-5));
  CHECK(q100[1] == Approx(-0.1504).margin(5e-5));
  CHECK(k103[0] == Approx(-1.4052).margin(5e-5));
  CHECK(k103[1] == Approx(-0.1592).margin(5e-5));
  const Eigen::VectorXd k3 = rope_apply(r2, k, 3);
  CHECK(k3[0] == Approx(-1.1311).margin(5e-5));
  CHECK(k3[1] == Approx(-0.8489).margin(5e-5));
  for (double score : {q5.dot(k8), q100.dot(k103), q.dot(k3)})
    CHECK(score == Approx(-3.1111).margin(5e-5));
  // Lesson 6: Llama 3.1 (d = 128, b = 500 000, L = 8 192, s = 8).
  RopeParams l;
  l.head_dim = 128;
  l.base = 500000;
  l.original_context = 8192;
  l.factor = 8;
  l.scaling = RopeScaling::ntk;
  CHECK(rope_effective_base(l) == Approx(4134231).margin(1));
  {
    const Eigen::VectorXd o = rope_inv_freq_original(l), n = rope_inv_freq(l);
    CHECK(o[0] / n[0] == Approx(1.0));
    CHECK(o[63] / n[63] == Approx(8.0));
  }
  l.scaling = RopeScaling::yarn;
  CHECK(rope_attention_scale(l) == Approx(1.2079).margin(5e-5));
  CHECK(std::pow(rope_attention_scale(l), 2) == Approx(1.4591).margin(5e-5));
  l.scaling = RopeScaling::llama3;
  const Eigen::VectorXd orig = rope_inv_freq_original(l), scaled = rope_inv_freq(l);
  const Eigen::VectorXd lam = rope_wavelengths(orig);
  for (int i = 0; i < 64; ++i) {
    INFO("pair " << i << ", wavelength " << lam[i]);
    const double ratio = orig[i] / scaled[i];
    if (i <= 28) CHECK(ratio == Approx(1.0));
    if (i >= 29 && i <= 34) CHECK((ratio > 1.0 && ratio < 8.0));
    if (i >= 35) CHECK(ratio == Approx(8.0));
  }
  CHECK(lam[28] == Approx(1956.5).margin(0.05));
  CHECK(lam[29] == Approx(2401.7).margin(0.05));
  CHECK(lam[34] == Approx(6695.1).margin(0.05));
  CHECK(lam[35] == Approx(8218.7).margin(0.05));
  // Lesson 10: a cache of c = 22 tokens, A_t is new token j = 1 (the quiz's seed 11).
  const NumericQuestion mq = quiz_generate("wm_last_visible_key", 11);
  REQUIRE(params_of(mq)["c"] == 22);
  REQUIRE(params_of(mq)["j"] == 1);
  CHECK(mq.answer == 23);
}
