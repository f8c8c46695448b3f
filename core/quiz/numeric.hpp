// Numeric quiz questions: a generator draws fresh parameters from a seed (so every
// attempt differs, yet a seed reproduces its question exactly) and computes the answer
// with the same core code the labs use; the checker accepts answers within a tolerance.
// Prompts live in the lesson files with {name} placeholders for the parameters.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace poslab {

struct NumericParam {
  std::string name;  // placeholder name in prompts, e.g. "m"
  double value;      // shown as an integer when it is one
};

// An intermediate value of the worked solution (θ_i, the angle before reduction, ...),
// shown after answering and usable as a {name} placeholder in explanations only.
struct NumericStep {
  std::string name;   // placeholder name, ASCII, e.g. "theta"
  std::string label;  // how it is written, e.g. "θ_i" or "m·θ_i mod 2π"
  double value;       // its value
};

// A common mistake and the answer it produces for these parameters. Its explanation is
// lessons/ui.toml's "mistake_<id>" text, filled with the question's params and steps.
struct NumericMistake {
  std::string id;  // e.g. "ntk_bs" (NTK's b·s instead of b·s^(d/(d−2)))
  double value;    // the wrong answer this mistake gives
};

struct NumericQuestion {
  std::string generator;                 // which generator made it
  std::uint64_t seed = 0;                // reproduces the parameters
  std::vector<NumericParam> params;      // what the prompt shows
  std::vector<NumericStep> steps;        // intermediate values of the solution (not in prompts)
  std::vector<NumericMistake> mistakes;  // answers that common mistakes give
  double answer = 0;                     // the core's answer
  double abs_tol = 0;                    // accepted absolute error
  double rel_tol = 0;                    // accepted error relative to |answer| (the larger wins)
  double period = 0;     // > 0: answers equal modulo this are the same (angles: 2 pi)
  bool integer = false;  // the answer is a whole number (index, bucket)
  // Non-empty when the answer cannot be computed (a model-backed question whose model is
  // missing): one line saying which file and what to do. The answer is then NaN, so no
  // given number is graded right.
  std::string unavailable;
};

struct QuizLmData;  // core/quiz/lm_questions.hpp: curves measured on the shipped models

// Every generator, in a stable order:
//   rope_angle          angle of pair i at position m (head dim d, base b), modulo 2 pi
//   rope_wavelength     wavelength of pair i in tokens
//   rope_pi_angle       angle of pair i at position m under position interpolation (factor s)
//   rope_reencode_angle rotation that moves a cached key of pair i from position p to q
//   ntk_base            NTK-aware base b' = b s^(d/(d-2))
//   yarn_last_kept_pair highest pair index YaRN leaves unchanged (defaults alpha 1, beta 32)
//   yarn_logit_scale    factor YaRN's temperature puts on the logits, (0.1 ln s + 1)^2
//   half_split_partner  the dimension paired with dimension j in the half-split layout
//   sinusoid_value      value of dimension j of the sinusoidal encoding at position pos
//   alibi_slope         ALiBi slope of head h of n
//   t5_bucket_encoder   T5 bucket of key - query = rel, bidirectional (32 buckets, max 128)
//   t5_bucket_decoder   the same, unidirectional
//   swin_index          Swin relative-position table index for (dh, dw) in a Wh x Ww window
//   kv_window_index     position a cached token gets after a sliding window drops k steps
//   stitch_shift        positions a key must move when two caches are stitched
//   wm_action_index     position of the action token A_t (S_t at 2t, A_t at 2t + 1)
//   wm_index_after_drop index of A_t after the oldest k steps leave and indices reset
//   wm_pair_angle       RoPE angle of pair i between S_t and S_{t-3} (6 positions apart)
//   wm_last_visible_key last key column a new token may attend to, c tokens cached
// (The generators that read the shipped language models are listed apart, in
// core/quiz/lm_questions.hpp: their answers need measured curves, not only a seed.)
const std::vector<std::string>& quiz_generator_names();

// Throws InputError naming the generator when it is unknown. The model-backed generators
// (quiz_lm_generator_names(), core/quiz/lm_questions.hpp) read `models`; without it, or
// without a model they need, their question comes back with `unavailable` set.
NumericQuestion quiz_generate(const std::string& generator, std::uint64_t seed,
                              const QuizLmData* models = nullptr);
// The model-backed part of quiz_generate (lm_questions.cpp).
NumericQuestion quiz_lm_generate(const std::string& generator, std::uint64_t seed,
                                 const QuizLmData* models);

struct NumericVerdict {
  bool correct = false;
  double expected = 0;   // the core's answer
  double error = 0;      // |given - expected|, reduced modulo the period if any
  double tolerance = 0;  // largest error accepted
};
NumericVerdict quiz_check_numeric(const NumericQuestion& q, double given);

// Ids of the mistakes whose wrong answer matches `given` (within the question's tolerance
// and period). A mistake that gives the right answer for these parameters is never named,
// and neither is any mistake when `given` is correct.
std::vector<std::string> quiz_recognise_mistakes(const NumericQuestion& q, double given);

// Largest error accepted for this question (abs_tol or rel_tol·|answer|, the larger).
double quiz_numeric_tolerance(const NumericQuestion& q);

// Text of a parameter as a prompt shows it ("10000", "0.5").
std::string quiz_param_text(double value);
// Text of a computed value (steps, expected answers): whole numbers as such, else 6
// significant digits ("0.0177828").
std::string quiz_value_text(double value);
// Replaces every {name} in `text` by its parameter's value, or with_steps, also by a step's
// value; throws InputError naming the placeholder when the question has no such name.
// "{{" stays a literal "{". Prompts are filled without steps (they would give the answer
// away), explanations and mistake texts with them.
std::string quiz_fill_template(const std::string& text, const NumericQuestion& q,
                               bool with_steps = false);

}  // namespace poslab
