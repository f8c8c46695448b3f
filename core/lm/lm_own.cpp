// The length lab's "Train your own" recipe (see lm_own.hpp).
#include "core/lm/lm_own.hpp"

#include "core/common/errors.hpp"

namespace poslab::lm {

void lm_own_validate(const LmOwnSpec& s) {
  require_in_range("steps", static_cast<double>(s.steps), LmOwnSpec::steps_range);
  require_in_range("context", s.context, LmOwnSpec::context_range);
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
