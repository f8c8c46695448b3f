// Numeric question generators and their checker (see numeric.hpp). Answers come from
// core/rope and core/attention, so a question can never disagree with what the labs draw.
#include "core/quiz/numeric.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/common/random.hpp"
#include "core/position/encodings.hpp"
#include "core/quiz/lm_questions.hpp"
#include "core/rope/rope.hpp"

namespace poslab {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// core/common/random.hpp's SplitMix64 stepped directly from the seed, so the parameters
// of a saved seed stay the same across versions and platforms.
class QuizRng {
 public:
  explicit QuizRng(std::uint64_t seed) : gen_(seed) {}
  std::uint64_t next() { return gen_.next_u64(); }
  int uniform(int lo, int hi) {  // inclusive, hi - lo small
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  double pick(std::initializer_list<double> values) {
    return *(values.begin() + uniform(0, static_cast<int>(values.size()) - 1));
  }

 private:
  SplitMix64 gen_;
};

RopeParams rope_params(int d, double base) {
  RopeParams p;
  p.head_dim = d;
  p.base = base;
  return p;
}

// Reduces an angle to [0, 2π).
double reduce_angle(double a) {
  const double r = std::fmod(a, kTwoPi);
  return r < 0 ? r + kTwoPi : r;
}

// An angle answer: tolerance, period, and the steps θ_i, the raw angle and the reduced one.
void angle_answer(NumericQuestion& q, double theta, double raw) {
  q.answer = raw;
  q.abs_tol = 0.01;  // radians
  q.period = kTwoPi;
  q.steps.push_back({"theta", "θ_i", theta});
  q.steps.push_back({"raw", "angle before reduction", raw});
  q.steps.push_back({"reduced", "angle mod 2π", reduce_angle(raw)});
}

using Generator = std::function<void(QuizRng&, NumericQuestion&)>;

const std::vector<std::pair<std::string, Generator>>& generators() {
  static const std::vector<std::pair<std::string, Generator>> all{
      {"rope_angle",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = r.pick({10000, 500000, 1000000});
         const int i = r.uniform(0, d / 2 - 1), m = r.uniform(1, 5000);
         q.params = {{"d", double(d)}, {"base", base}, {"i", double(i)}, {"m", double(m)}};
         const RopeParams p = rope_params(d, base);
         angle_answer(q, rope_inv_freq(p)[i], rope_angles(p, {double(m)})(0, i));
         q.mistakes = {{"rope_i_over_d", m * std::pow(base, -double(i) / d)},
                       {"rope_angle_per_dim", m * std::pow(base, -2.0 * (2 * i) / d)}};
       }},
      {"rope_wavelength",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = r.pick({10000, 500000});
         const int i = r.uniform(0, d / 2 - 1);
         q.params = {{"d", double(d)}, {"base", base}, {"i", double(i)}};
         const RopeParams p = rope_params(d, base);
         const double theta = rope_inv_freq_original(p)[i];
         q.answer = rope_wavelengths(rope_inv_freq_original(p))[i];
         q.rel_tol = 0.01;
         q.steps = {{"theta", "θ_i", theta}};
         q.mistakes = {{"wavelength_no_2pi", 1.0 / theta},
                       {"wavelength_i_over_d", kTwoPi * std::pow(base, double(i) / d)}};
       }},
      {"rope_pi_angle",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = 10000, s = r.pick({2, 4, 8});
         const int i = r.uniform(0, d / 2 - 1), m = r.uniform(1, 8000);
         q.params = {
             {"d", double(d)}, {"base", base}, {"i", double(i)}, {"m", double(m)}, {"s", s}};
         RopeParams p = rope_params(d, base);
         const double theta = rope_inv_freq(p)[i];
         p.scaling = RopeScaling::linear;
         p.factor = s;
         q.steps.push_back({"m_over_s", "m / s", m / s});
         angle_answer(q, theta, rope_angles(p, {double(m)})(0, i));
         q.mistakes = {{"pi_multiplied", m * s * theta}, {"pi_not_scaled", m * theta}};
       }},
      {"rope_reencode_angle",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = 10000;
         const int i = r.uniform(0, d / 2 - 1), from = r.uniform(100, 4000), to = r.uniform(0, 99);
         q.params = {{"d", double(d)},
                     {"base", base},
                     {"i", double(i)},
                     {"p", double(from)},
                     {"q", double(to)}};
         const RopeParams p = rope_params(d, base);
         const double theta = rope_inv_freq(p)[i];
         q.steps.push_back({"delta", "new − old", double(to - from)});
         // A re-encode is ONE rotation by (new - old) positions (rope_reencode does this).
         angle_answer(q, theta, rope_angles(p, {double(to - from)})(0, i));
         q.mistakes = {{"reencode_sign", (from - to) * theta}, {"reencode_new_only", to * theta}};
       }},
      {"ntk_base",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = r.pick({10000, 500000}), s = r.pick({2, 4, 8, 16});
         q.params = {{"d", double(d)}, {"base", base}, {"s", s}};
         RopeParams p = rope_params(d, base);
         p.scaling = RopeScaling::ntk;
         p.factor = s;
         q.answer = rope_effective_base(p);
         q.rel_tol = 0.005;
         const double exponent = double(d) / (d - 2);
         q.steps = {{"exponent", "d/(d−2)", exponent},
                    {"s_pow", "s^(d/(d−2))", std::pow(s, exponent)}};
         q.mistakes = {{"ntk_bs", base * s},
                       {"ntk_exponent_inverted", base * std::pow(s, (d - 2.0) / d)}};
       }},
      {"yarn_last_kept_pair",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = r.pick({10000, 500000}), L = r.pick({2048, 4096, 8192}),
                      s = r.pick({4, 8, 16});
         q.params = {{"d", double(d)}, {"base", base}, {"L", L}, {"s", s}};
         RopeParams p = rope_params(d, base);
         p.scaling = RopeScaling::yarn;
         p.factor = s;
         p.original_context = static_cast<int>(L);
         const Eigen::VectorXd keep = rope_yarn_keep(p);
         int last = -1;
         for (int k = 0; k < keep.size(); ++k)
           if (keep[k] == 1.0) last = k;
         q.answer = last;
         q.integer = true;
         // correction_dim(n) = d·ln(L/(2π·n)) / (2·ln b): the pair index turning n times in L.
         auto dim = [&](double turns) {
           return d * std::log(L / (kTwoPi * turns)) / (2 * std::log(base));
         };
         q.steps = {{"dim_beta", "d·ln(L/(2π·32)) / (2 ln b)", dim(32)},
                    {"dim_alpha", "d·ln(L/(2π·1)) / (2 ln b)", dim(1)}};
         q.mistakes = {{"yarn_ceil", std::ceil(dim(32))}, {"yarn_alpha_bound", std::ceil(dim(1))}};
       }},
      {"yarn_logit_scale",
       [](QuizRng& r, NumericQuestion& q) {
         const double s = r.pick({2, 4, 8, 16, 32, 64});
         q.params = {{"s", s}};
         RopeParams p;
         p.scaling = RopeScaling::yarn;
         p.factor = s;
         const double mscale = rope_attention_scale(p);
         q.answer = mscale * mscale;
         q.rel_tol = 0.005;
         q.steps = {{"mscale", "mscale = 0.1·ln(s) + 1", mscale}};
         const double log10_mscale = 0.1 * std::log10(s) + 1;
         q.mistakes = {{"yarn_mscale_once", mscale}, {"yarn_log10", log10_mscale * log10_mscale}};
       }},
      {"half_split_partner",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({8, 16, 32, 64, 128}));
         const int j = r.uniform(0, d - 1);
         q.params = {{"d", double(d)}, {"j", double(j)}, {"last", double(d - 1)}};
         RopeParams p = rope_params(d, 10000);
         const auto [first, second] = rope_pair_dims(p, j % (d / 2));  // half-split: pair j mod d/2
         q.answer = first == j ? second : first;
         q.integer = true;
         q.steps = {{"half", "d/2", d / 2.0}, {"pair", "pair index i", double(j % (d / 2))}};
         q.mistakes = {{"partner_interleaved", double(j ^ 1)}};
       }},
      {"sinusoid_value",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({16, 64, 512}));
         const int j = r.uniform(0, 7), pos = r.uniform(1, 60);
         q.params = {{"d", double(d)}, {"j", double(j)}, {"pos", double(pos)}};
         const double angle = pos / std::pow(10000.0, (j - j % 2) / double(d));
         q.answer = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
         q.abs_tol = 0.005;
         q.steps = {{"two_i", "2i", double(j - j % 2)}, {"angle", "pos / 10000^(2i/d)", angle}};
         const double angle_2j = pos / std::pow(10000.0, 2.0 * j / d);
         q.mistakes = {{"sinusoid_swapped", j % 2 == 0 ? std::cos(angle) : std::sin(angle)},
                       {"sinusoid_2j", j % 2 == 0 ? std::sin(angle_2j) : std::cos(angle_2j)}};
       }},
      {"alibi_slope",
       [](QuizRng& r, NumericQuestion& q) {
         const int n = static_cast<int>(r.pick({4, 8, 16, 6, 12}));
         const int h = r.uniform(1, n);
         q.params = {{"n", double(n)}, {"h", double(h)}};
         q.answer = alibi_slopes(n)[static_cast<size_t>(h - 1)];
         q.rel_tol = 0.002;
         int p2 = 1;
         while (p2 * 2 <= n) p2 *= 2;
         q.steps = {{"p", "p = 2^⌊log2 n⌋", double(p2)}};
         q.mistakes = {{"alibi_power_of_two", std::pow(2.0, -8.0 * h / n)},
                       {"alibi_no_h", std::pow(2.0, -8.0 / n)}};
       }},
      {"t5_bucket_encoder",
       [](QuizRng& r, NumericQuestion& q) {
         const int rel = r.uniform(-200, 200);
         q.params = {{"rel", double(rel)}};
         q.answer = t5_bucket(rel, true, 32, 128);
         q.integer = true;
         // Each side has 16 buckets: the side (+16 for keys after the query), then the
         // bucket of n = |rel| among 16 (8 exact, 8 logarithmic up to 128).
         const int n = std::abs(rel), offset = rel > 0 ? 16 : 0;
         q.steps = {{"n", "n = |rel|", double(n)},
                    {"offset", "side offset", double(offset)},
                    {"inner", "bucket within the side", q.answer - offset}};
         q.mistakes = {{"t5_plus16_missing", q.answer - offset},
                       {"t5_plus16_wrong_side", rel < 0 ? q.answer + 16 : q.answer},
                       {"t5_decoder_formula", double(t5_bucket(-n, false, 32, 128))}};
       }},
      {"t5_bucket_decoder",
       [](QuizRng& r, NumericQuestion& q) {
         const int rel = -r.uniform(0, 200);
         q.params = {{"rel", double(rel)}, {"dist", double(-rel)}};
         q.answer = t5_bucket(rel, false, 32, 128);
         q.integer = true;
         const int n = -rel;
         q.steps = {{"n", "n = −rel", double(n)},
                    {"log_part", "ln(n/16)/ln(128/16)·16",
                     n >= 16 ? std::log(n / 16.0) / std::log(8.0) * 16 : 0.0}};
         q.mistakes = {{"t5_encoder_formula", double(t5_bucket(rel, true, 32, 128))}};
       }},
      {"swin_index",
       [](QuizRng& r, NumericQuestion& q) {
         const int wh = r.uniform(2, 7), ww = r.uniform(2, 7);
         const int dh = r.uniform(-(wh - 1), wh - 1), dw = r.uniform(-(ww - 1), ww - 1);
         q.params = {{"wh", double(wh)},
                     {"ww", double(ww)},
                     {"dh", double(dh)},
                     {"dw", double(dw)},
                     {"size", double((2 * wh - 1) * (2 * ww - 1))}};
         q.answer = swin_relative_index(dh, dw, wh, ww);
         q.integer = true;
         q.steps = {{"row", "Δh + W_h − 1", double(dh + wh - 1)},
                    {"col", "Δw + W_w − 1", double(dw + ww - 1)},
                    {"width", "2W_w − 1", double(2 * ww - 1)}};
         q.mistakes = {{"swin_axes_swapped", double((dw + ww - 1) * (2 * wh - 1) + dh + wh - 1)},
                       {"swin_no_shift", double(dh * (2 * ww - 1) + dw)}};
       }},
      {"kv_window_index",
       [](QuizRng& r, NumericQuestion& q) {
         const int t = r.uniform(1, 2), c = r.uniform(4, 10), k = r.uniform(1, 3);
         const int p = r.uniform(t * k, t * c - 1);
         q.params = {{"t", double(t)},
                     {"c", double(c)},
                     {"k", double(k)},
                     {"p", double(p)},
                     {"last", double(t * c - 1)}};
         q.answer = p - t * k;  // the dropped t*k tokens no longer count
         q.integer = true;
         q.steps = {{"removed", "k·t", double(t * k)}};
         q.mistakes = {{"kv_steps_not_tokens", double(p - k)}};
       }},
      {"stitch_shift",
       [](QuizRng& r, NumericQuestion& q) {
         const int start = r.uniform(50, 300), len_first = r.uniform(4, 32),
                   len_second = r.uniform(10, 200);
         const int j = r.uniform(0, len_first + len_second - 1);
         const int original = j < len_first ? start + j : j - len_first;
         q.params = {{"start", double(start)},
                     {"r", double(len_first)},
                     {"n", double(len_second)},
                     {"j", double(j)},
                     {"end", double(start + len_first - 1)},
                     {"last", double(len_second - 1)}};
         q.answer = j - original;  // new global position minus the position it was encoded at
         q.integer = true;
         q.steps = {{"old", "original position", double(original)}};
         q.mistakes = {{"stitch_sign", double(original - j)}};
       }},
      // World model (lesson 10): S_t at position 2t, A_t at 2t + 1 in each ship's history.
      {"wm_action_index",
       [](QuizRng& r, NumericQuestion& q) {
         const int t = r.uniform(0, 95);
         q.params = {{"t", double(t)}};
         q.answer = 2 * t + 1;
         q.integer = true;
         q.steps = {{"state_index", "index of S_t = 2t", double(2 * t)}};
         q.mistakes = {{"wm_state_index", double(2 * t)}, {"wm_step_not_token", double(t)}};
       }},
      {"wm_index_after_drop",
       [](QuizRng& r, NumericQuestion& q) {
         const int c = r.uniform(8, 32), k = r.uniform(1, 4), t = r.uniform(k, c - 1);
         q.params = {
             {"c", double(c)}, {"k", double(k)}, {"t", double(t)}, {"last", double(2 * c - 1)}};
         q.answer = 2 * (t - k) + 1;  // the k dropped steps took 2k positions with them
         q.integer = true;
         q.steps = {{"old", "index of A_t before = 2t + 1", double(2 * t + 1)},
                    {"removed", "2k", double(2 * k)}};
         q.mistakes = {{"wm_drop_tokens_not_steps", double(2 * t + 1 - k)}};
       }},
      {"wm_pair_angle",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({32, 64}));
         const double base = 10000;
         const int i = r.uniform(0, d / 2 - 1), t = r.uniform(3, 95);
         q.params = {{"d", double(d)}, {"base", base}, {"i", double(i)}, {"t", double(t)}};
         const RopeParams p = rope_params(d, base);
         const double theta = rope_inv_freq(p)[i];
         // S_t sits at 2t, S_{t-3} at 2t - 6: the score sees a rotation by 6 positions.
         q.steps.push_back({"distance", "2t − 2(t − 3)", 6.0});
         angle_answer(q, theta, rope_angles(p, {6.0})(0, i));
         // Lesson 4's score turns by (n − m)·θ = −6·θ: the same angle, measured the other way.
         q.mistakes = {{"wm_steps_not_tokens", 3 * theta}, {"wm_pair_sign", -6 * theta}};
       }},
      {"wm_last_visible_key",
       [](QuizRng& r, NumericQuestion& q) {
         const int c = r.uniform(4, 60), n = r.uniform(2, 6), j = r.uniform(0, n - 1);
         q.params = {
             {"c", double(c)}, {"n", double(n)}, {"j", double(j)}, {"last", double(c + n - 1)}};
         q.answer = c + j;  // causal mask offset by the cached length
         q.integer = true;
         q.steps = {{"offset", "cached length c", double(c)}};
         q.mistakes = {{"wm_mask_oldest", double(j)}};
       }},
  };
  return all;
}

bool within(double given, double target, double tol, double period) {
  double diff = given - target;
  if (period > 0) diff = std::remainder(diff, period);
  return std::abs(diff) <= tol;
}

}  // namespace

const std::vector<std::string>& quiz_generator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, gen] : generators()) n.push_back(name);
    return n;
  }();
  return names;
}

NumericQuestion quiz_generate(const std::string& generator, std::uint64_t seed,
                              const QuizLmData* models) {
  if (quiz_generator_uses_models(generator)) return quiz_lm_generate(generator, seed, models);
  for (const auto& [name, gen] : generators()) {
    if (name != generator) continue;
    NumericQuestion q;
    q.generator = name;
    q.seed = seed;
    QuizRng rng(seed);
    gen(rng, q);
    if (q.integer) q.abs_tol = 1e-6;
    return q;
  }
  std::string list;
  for (const auto& n : quiz_generator_names()) list += (list.empty() ? "" : ", ") + n;
  for (const auto& n : quiz_lm_generator_names()) list += ", " + n;
  throw InputError("numeric generator \"" + generator + "\" is unknown (known: " + list + ")");
}

double quiz_numeric_tolerance(const NumericQuestion& q) {
  return std::max(q.abs_tol, q.rel_tol * std::abs(q.answer));
}

std::vector<std::string> quiz_recognise_mistakes(const NumericQuestion& q, double given) {
  std::vector<std::string> out;
  if (!std::isfinite(given) || quiz_check_numeric(q, given).correct) return out;
  for (const auto& m : q.mistakes) {
    const double tol = std::max(q.abs_tol, q.rel_tol * std::abs(m.value));
    if (!std::isfinite(m.value) || within(m.value, q.answer, quiz_numeric_tolerance(q), q.period))
      continue;  // this mistake gives the right answer here: nothing to point out
    if (within(given, m.value, tol, q.period)) out.push_back(m.id);
  }
  return out;
}

NumericVerdict quiz_check_numeric(const NumericQuestion& q, double given) {
  NumericVerdict v;
  v.expected = q.answer;
  v.tolerance = quiz_numeric_tolerance(q);
  if (!std::isfinite(given)) {
    v.error = INFINITY;
    return v;
  }
  double diff = given - q.answer;
  if (q.period > 0) diff = std::remainder(diff, q.period);
  v.error = std::abs(diff);
  v.correct = v.error <= v.tolerance;
  return v;
}

std::string quiz_value_text(double value) {
  if (value == std::round(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string quiz_param_text(double value) {
  if (value == std::round(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return format_double(value);
}

std::string quiz_fill_template(const std::string& text, const NumericQuestion& q, bool with_steps) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "{{") == 0) {
      out += '{';
      i += 2;
      continue;
    }
    if (text[i] != '{') {
      out += text[i++];
      continue;
    }
    const size_t close = text.find('}', i);
    if (close == std::string::npos)
      throw InputError("prompt of generator " + q.generator + ": \"{\" at character " +
                       std::to_string(i) + " is never closed (write {{ for a literal brace)");
    const std::string name = text.substr(i + 1, close - i - 1);
    const double* found = nullptr;
    bool step = false;
    for (const auto& p : q.params)
      if (p.name == name) found = &p.value;
    if (with_steps && !found)
      for (const auto& st : q.steps)
        if (st.name == name) found = &st.value, step = true;
    if (!found) {
      std::string list;
      for (const auto& p : q.params) list += (list.empty() ? "" : ", ") + p.name;
      if (with_steps)
        for (const auto& st : q.steps) list += (list.empty() ? "" : ", ") + st.name;
      throw InputError("placeholder {" + name + "} is not a " +
                       (with_steps ? "parameter or step" : "parameter (prompts show no steps)") +
                       " of generator " + q.generator + " (it has: " + list + ")");
    }
    out += step ? quiz_value_text(*found) : quiz_param_text(*found);
    i = close + 1;
  }
  return out;
}

}  // namespace poslab
