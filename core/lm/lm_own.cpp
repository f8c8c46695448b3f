// The length lab's "Train your own" recipe (see lm_own.hpp).
#include "core/lm/lm_own.hpp"

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/lm/length_lab.hpp"
#include "core/lm/lm_budget.hpp"

namespace poslab::lm {

namespace {

// Whether an own model of length L fits the lab's budget in training and in the lab at its
// largest span with the default windows (more windows on a long model: the lab leaves that
// curve out with one line saying to lower them, as for any curve over the budget).
bool lm_own_fits(int L) {
  LengthLabSettings most;  // the lab's largest span, its default windows
  most.span = static_cast<int>(LengthLabSettings::span_range.hi);
  const LmBudget budget;
  for (const LmPosition p : {LmPosition::none, LmPosition::sinusoidal, LmPosition::learned,
                             LmPosition::rope, LmPosition::alibi, LmPosition::t5}) {
    LmOwnSpec spec;
    spec.position = p;
    spec.context = L;
    const LmConfig c = lm_own_config(spec);
    const LmTrainSettings t = lm_own_settings(spec);
    if (!lm_train_step_cost(c, t.batch, L, t.valid_windows, t.threads).fits(budget) ||
        !length_curve_cost(most, c).fits(budget) ||
        !length_views_cost(most, c, int64_t{most.span} * L + 1).fits(budget))
      return false;
  }
  return true;
}

}  // namespace

ParamRange lm_own_context_range() {
  static const int hi = [] {
    int L = 16;
    while (L + 16 <= 1024 && lm_own_fits(L + 16)) L += 16;
    return L;
  }();
  return {16, static_cast<double>(hi)};
}

void lm_own_validate(const LmOwnSpec& s) {
  require_in_range("steps", static_cast<double>(s.steps), LmOwnSpec::steps_range);
  require_in_range("context", s.context, lm_own_context_range());
  require_in_range("seed", static_cast<double>(s.seed), LmOwnSpec::seed_range);
}

LmConfig lm_own_config(const LmOwnSpec& s) {
  LmConfig c;
  c.embed = 64;
  c.heads = 4;
  c.layers = 2;
  c.context = s.context;
  c.position = s.position;
  return c;
}

LmTrainSettings lm_own_settings(const LmOwnSpec& s) {
  LmTrainSettings t;
  t.batch = 16;
  t.steps = s.steps;
  t.seed = s.seed;
  t.adam.lr = 2e-3;
  t.adam.warmup_steps = 100;
  t.log_every = 100;
  t.valid_windows = 32;
  t.threads = 2;
  return t;
}

std::string lm_own_stem(const LmOwnSpec& s) {
  return std::string(kLmOwnPrefix) + lm_position_name(s.position) + "_L" +
         std::to_string(s.context) + "_seed" + std::to_string(s.seed);
}

namespace {
std::string lm_own_shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}
}  // namespace

std::string lm_own_command(const LmOwnSpec& s, const std::string& output) {
  const LmConfig c = lm_own_config(s);
  const LmTrainSettings t = lm_own_settings(s);
  return "poslab-cli lm train --position " + std::string(lm_position_name(c.position)) +
         " --embed " + std::to_string(c.embed) + " --heads " + std::to_string(c.heads) +
         " --layers " + std::to_string(c.layers) + " --context " + std::to_string(c.context) +
         " --batch " + std::to_string(t.batch) + " --steps " + std::to_string(t.steps) +
         " --lr 2e-3 --warmup " + std::to_string(t.adam.warmup_steps) + " --seed " +
         std::to_string(t.seed) + " --log-every " + std::to_string(t.log_every) +
         " --valid-windows " + std::to_string(t.valid_windows) + " --threads " +
         std::to_string(t.threads) + " -o " + lm_own_shell_quote(output);
}

}  // namespace poslab::lm
