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

struct NumericQuestion {
  std::string generator;             // which generator made it
  std::uint64_t seed = 0;            // reproduces the parameters
  std::vector<NumericParam> params;  // what the prompt shows
  double answer = 0;                 // the core's answer
  double abs_tol = 0;                // accepted absolute error
  double rel_tol = 0;                // accepted error relative to |answer| (the larger wins)
  double period = 0;                 // > 0: answers equal modulo this are the same (angles: 2 pi)
  bool integer = false;              // the answer is a whole number (index, bucket)
};

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
const std::vector<std::string>& quiz_generator_names();

// Throws InputError naming the generator when it is unknown.
NumericQuestion quiz_generate(const std::string& generator, std::uint64_t seed);

struct NumericVerdict {
  bool correct = false;
  double expected = 0;   // the core's answer
  double error = 0;      // |given - expected|, reduced modulo the period if any
  double tolerance = 0;  // largest error accepted
};
NumericVerdict quiz_check_numeric(const NumericQuestion& q, double given);

// Text of a parameter as a prompt shows it ("10000", "0.5").
std::string quiz_param_text(double value);
// Replaces every {name} in `text` by its parameter's value; throws InputError naming the
// placeholder when the question has no such parameter. "{{" stays a literal "{".
std::string quiz_fill_template(const std::string& text, const NumericQuestion& q);

}  // namespace poslab
