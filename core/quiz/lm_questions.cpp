// The model-backed quiz generators (see lm_questions.hpp). Every number comes from curves
// lm_eval_positions measured; this file only picks the parameters and reads the curves.
#include "core/quiz/lm_questions.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "core/lm/lm_eval.hpp"
#include "core/quiz/numeric.hpp"

namespace poslab {

using lm::LengthModelId;

const QuizLmCurve* QuizLmData::find(LengthModelId id) const {
  for (const QuizLmCurve& c : curves)
    if (c.id == id) return &c;
  return nullptr;
}

namespace {

constexpr double kLmQuizNaN = std::numeric_limits<double>::quiet_NaN();

// One generator: the models it reads, then how it fills the question from their curves
// (each curve present; the parameters are drawn before, so they exist without models).
struct LmGenerator {
  std::string name;
  std::vector<LengthModelId> models;
  std::function<void(SplitMix64&, NumericQuestion&)> params;
  std::function<void(const std::vector<const QuizLmCurve*>&, NumericQuestion&)> answer;
};

double lm_quiz_pick(SplitMix64& rng, std::initializer_list<double> values) {
  return *(values.begin() + static_cast<long>(rng.next_u64() % values.size()));
}

double lm_quiz_param(const NumericQuestion& q, const std::string& name) {
  for (const NumericParam& p : q.params)
    if (p.name == name) return p.value;
  return kLmQuizNaN;
}

// The loss at p: the mean of the L/8 positions before p (lm_curve_at).
double lm_quiz_at(const QuizLmCurve& c, int p) {
  return lm::lm_curve_at(c.bits, p, c.context);
}

const std::vector<LmGenerator>& lm_generators() {
  static const std::vector<LmGenerator> all{
      {"lm_rope_first_rise",
       {LengthModelId::rope},
       [](SplitMix64& r, NumericQuestion& q) {
         q.params = {{"extra", lm_quiz_pick(r, {0.5, 0.75, 1.0})}};
         q.steps = {{"half", "bpb(L/2)", kLmQuizNaN},
                    {"threshold", "bpb(L/2) + extra", kLmQuizNaN}};
       },
       [](const std::vector<const QuizLmCurve*>& c, NumericQuestion& q) {
         const QuizLmCurve& rope = *c[0];
         const int L = rope.context;
         const double half = lm_quiz_at(rope, L / 2);
         const double threshold = half + lm_quiz_param(q, "extra");
         q.steps[0].value = half;
         q.steps[1].value = threshold;
         q.abs_tol = std::max(1, L / 8);  // positions: the width of the band averaged
         for (int p = L / 2; p <= static_cast<int>(rope.bits.size()); ++p)
           if (lm_quiz_at(rope, p) > threshold) {
             q.answer = p;
             return;
           }
         q.unavailable = "the unscaled RoPE model's loss never rises by " +
                         quiz_value_text(threshold - half) + " bits/byte up to 8L";
       }},
      {"lm_yarn_tuned_gain",
       {LengthModelId::rope, LengthModelId::rope_ft_yarn},
       [](SplitMix64& r, NumericQuestion& q) {
         // 3L, 5L, 6L: points the lessons' tables do not print (issue 41)
         q.params = {{"k", lm_quiz_pick(r, {3, 5, 6})}};
         q.steps = {{"rope_at", "RoPE bpb(kL)", kLmQuizNaN},
                    {"tuned_at", "YaRN-tuned bpb(kL)", kLmQuizNaN}};
       },
       [](const std::vector<const QuizLmCurve*>& c, NumericQuestion& q) {
         const int k = static_cast<int>(lm_quiz_param(q, "k"));
         q.steps[0].value = lm_quiz_at(*c[0], k * c[0]->context);
         q.steps[1].value = lm_quiz_at(*c[1], k * c[1]->context);
         q.answer = q.steps[0].value - q.steps[1].value;
         q.abs_tol = 0.1;  // bits/byte
         q.mistakes = {{"lm_difference_sign", -q.answer}};
       }},
      {"lm_learned_jump",
       {LengthModelId::learned},
       [](SplitMix64& r, NumericQuestion& q) {
         q.params = {{"k", lm_quiz_pick(r, {3, 5, 6})}};  // not printed in lesson 2
         q.steps = {{"at_L", "bpb(L)", kLmQuizNaN}, {"at_kL", "bpb(kL)", kLmQuizNaN}};
       },
       [](const std::vector<const QuizLmCurve*>& c, NumericQuestion& q) {
         const int k = static_cast<int>(lm_quiz_param(q, "k"));
         const int L = c[0]->context;
         q.steps[0].value = lm_quiz_at(*c[0], L);
         q.steps[1].value = lm_quiz_at(*c[0], k * L);
         q.answer = q.steps[1].value - q.steps[0].value;
         q.abs_tol = 0.1;  // bits/byte
         q.mistakes = {{"lm_difference_sign", -q.answer},
                       {"lm_level_not_change", q.steps[1].value}};
       }},
      {"lm_sinusoidal_at",
       {LengthModelId::sinusoidal},
       [](SplitMix64& r, NumericQuestion& q) {
         q.params = {{"k", lm_quiz_pick(r, {3, 5, 6})}};  // not printed in lesson 2
         q.steps = {{"at_L", "bpb(L)", kLmQuizNaN}};
       },
       [](const std::vector<const QuizLmCurve*>& c, NumericQuestion& q) {
         const int k = static_cast<int>(lm_quiz_param(q, "k"));
         q.steps[0].value = lm_quiz_at(*c[0], c[0]->context);
         q.answer = lm_quiz_at(*c[0], k * c[0]->context);
         q.abs_tol = 0.2;  // bits/byte
       }},
  };
  return all;
}

const LmGenerator* lm_generator(const std::string& name) {
  for (const LmGenerator& g : lm_generators())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& quiz_lm_generator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const LmGenerator& g : lm_generators()) n.push_back(g.name);
    return n;
  }();
  return names;
}

bool quiz_generator_uses_models(const std::string& generator) {
  return lm_generator(generator) != nullptr;
}

std::vector<LengthModelId> quiz_lm_models(const std::string& generator) {
  const LmGenerator* g = lm_generator(generator);
  return g ? g->models : std::vector<LengthModelId>{};
}

NumericQuestion quiz_lm_generate(const std::string& generator, std::uint64_t seed,
                                 const QuizLmData* models) {
  const LmGenerator* g = lm_generator(generator);
  if (!g) throw InputError("numeric generator \"" + generator + "\" is not a model-backed one");
  NumericQuestion q;
  q.generator = g->name;
  q.seed = seed;
  q.answer = kLmQuizNaN;
  SplitMix64 rng(seed);
  g->params(rng, q);
  if (!models) {
    q.unavailable =
        "the answer is measured on the shipped language models (assets/models/lm_*), which "
        "were not loaded";
    return q;
  }
  std::vector<const QuizLmCurve*> curves;
  for (LengthModelId id : g->models) {
    const QuizLmCurve* c = models->find(id);
    if (c == nullptr || c->bits.empty() || c->context < 1) {
      for (const QuizLmMissing& m : models->missing)
        if (m.id == id) q.unavailable = m.message;
      if (q.unavailable.empty())
        q.unavailable = "the model lm_" + std::string(lm::length_model_name(id)) +
                        " was not measured; open the quiz again";
      return q;
    }
    curves.push_back(c);
  }
  g->answer(curves, q);
  return q;
}

struct QuizLmRun::Curve {
  lm::LmModel model;
  QuizLmCurve c;
  std::unique_ptr<lm::LmPositionsRun> run;
};

QuizLmRun::QuizLmRun(const lm::LengthLabData& data, std::vector<LengthModelId> ids) : data_(data) {
  for (LengthModelId id : ids)
    if (data.find(id) != nullptr && std::find(ids_.begin(), ids_.end(), id) == ids_.end())
      ids_.push_back(id);
}

QuizLmRun::~QuizLmRun() = default;

void QuizLmRun::step() {
  if (done()) return;
  if (!curve_) {
    const lm::LengthLabModel* m = data_.find(ids_[next_++]);
    curve_ = std::make_unique<Curve>(Curve{lm::LmModel(m->config), {}, nullptr});
    curve_->model.params = m->params;
    curve_->c.id = m->id;
    curve_->c.context = m->config.context;
    curve_->c.scaling = m->tuned;
    curve_->run = std::make_unique<lm::LmPositionsRun>(
        curve_->model, data_.valid, kQuizLmSpan * curve_->c.context, kQuizLmWindows, m->tuned);
  }
  curve_->run->step();
  if (!curve_->run->done()) return;
  curve_->c.bits = curve_->run->take().mean_bits;
  out_.curves.push_back(std::move(curve_->c));
  curve_.reset();
}

QuizLmData quiz_lm_measure(const lm::LengthLabData& data, const std::vector<LengthModelId>& ids,
                           const std::atomic<bool>* cancel) {
  QuizLmRun run(data, ids);
  while (!run.done()) {
    if (cancel && cancel->load()) break;
    run.step();
  }
  return run.take();
}

}  // namespace poslab
