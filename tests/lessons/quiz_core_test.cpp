// The quiz core against independent references: each numeric generator's answer is
// recomputed here from its parameters with the formulas of the spec (not the core's code),
// and the checker's tolerance, period and template rules are exercised directly.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "core/common/errors.hpp"
#include "core/labs.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "core/quiz/quiz.hpp"

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
  CHECK(s.points == Approx(2.5));
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
