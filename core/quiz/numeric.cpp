// Numeric question generators and their checker (see numeric.hpp). Answers come from
// core/rope and core/attention, so a question can never disagree with what the labs draw.
#include "core/quiz/numeric.hpp"

#include <cmath>
#include <functional>
#include <utility>

#include "core/attention/encodings.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/rope/rope.hpp"

namespace poslab {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// splitmix64: the same numbers on every platform and standard library (the standard
// distributions are implementation-defined, which would change questions between builds).
class QuizRng {
 public:
  explicit QuizRng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int uniform(int lo, int hi) {  // inclusive, hi - lo small
    return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  double pick(std::initializer_list<double> values) {
    return *(values.begin() + uniform(0, static_cast<int>(values.size()) - 1));
  }

 private:
  std::uint64_t state_;
};

RopeParams rope_params(int d, double base) {
  RopeParams p;
  p.head_dim = d;
  p.base = base;
  return p;
}

void angle_tolerance(NumericQuestion& q) {
  q.abs_tol = 0.01;  // radians
  q.period = kTwoPi;
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
         q.answer = rope_angles(rope_params(d, base), {double(m)})(0, i);
         angle_tolerance(q);
       }},
      {"rope_wavelength",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = r.pick({10000, 500000});
         const int i = r.uniform(0, d / 2 - 1);
         q.params = {{"d", double(d)}, {"base", base}, {"i", double(i)}};
         const RopeParams p = rope_params(d, base);
         q.answer = rope_wavelengths(rope_inv_freq_original(p))[i];
         q.rel_tol = 0.01;
       }},
      {"rope_pi_angle",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({64, 128}));
         const double base = 10000, s = r.pick({2, 4, 8});
         const int i = r.uniform(0, d / 2 - 1), m = r.uniform(1, 8000);
         q.params = {
             {"d", double(d)}, {"base", base}, {"i", double(i)}, {"m", double(m)}, {"s", s}};
         RopeParams p = rope_params(d, base);
         p.scaling = RopeScaling::linear;
         p.factor = s;
         q.answer = rope_angles(p, {double(m)})(0, i);
         angle_tolerance(q);
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
         // A re-encode is ONE rotation by (new - old) positions (rope_reencode does this).
         q.answer = rope_angles(rope_params(d, base), {double(to - from)})(0, i);
         angle_tolerance(q);
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
       }},
      {"sinusoid_value",
       [](QuizRng& r, NumericQuestion& q) {
         const int d = static_cast<int>(r.pick({16, 64, 512}));
         const int j = r.uniform(0, 7), pos = r.uniform(1, 60);
         q.params = {{"d", double(d)}, {"j", double(j)}, {"pos", double(pos)}};
         const double angle = pos / std::pow(10000.0, (j - j % 2) / double(d));
         q.answer = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
         q.abs_tol = 0.005;
       }},
      {"alibi_slope",
       [](QuizRng& r, NumericQuestion& q) {
         const int n = static_cast<int>(r.pick({4, 8, 16, 6, 12}));
         const int h = r.uniform(1, n);
         q.params = {{"n", double(n)}, {"h", double(h)}};
         q.answer = alibi_slopes(n)[static_cast<size_t>(h - 1)];
         q.rel_tol = 0.002;
       }},
      {"t5_bucket_encoder",
       [](QuizRng& r, NumericQuestion& q) {
         const int rel = r.uniform(-200, 200);
         q.params = {{"rel", double(rel)}};
         q.answer = t5_bucket(rel, true, 32, 128);
         q.integer = true;
       }},
      {"t5_bucket_decoder",
       [](QuizRng& r, NumericQuestion& q) {
         const int rel = -r.uniform(0, 200);
         q.params = {{"rel", double(rel)}, {"dist", double(-rel)}};
         q.answer = t5_bucket(rel, false, 32, 128);
         q.integer = true;
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
       }},
  };
  return all;
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

NumericQuestion quiz_generate(const std::string& generator, std::uint64_t seed) {
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
  throw InputError("numeric generator \"" + generator + "\" is unknown (known: " + list + ")");
}

NumericVerdict quiz_check_numeric(const NumericQuestion& q, double given) {
  NumericVerdict v;
  v.expected = q.answer;
  v.tolerance = std::max(q.abs_tol, q.rel_tol * std::abs(q.answer));
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

std::string quiz_param_text(double value) {
  if (value == std::round(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return format_double(value);
}

std::string quiz_fill_template(const std::string& text, const NumericQuestion& q) {
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
    const NumericParam* found = nullptr;
    for (const auto& p : q.params)
      if (p.name == name) found = &p;
    if (!found) {
      std::string list;
      for (const auto& p : q.params) list += (list.empty() ? "" : ", ") + p.name;
      throw InputError("placeholder {" + name + "} is not a parameter of generator " + q.generator +
                       " (it has: " + list + ")");
    }
    out += quiz_param_text(found->value);
    i = close + 1;
  }
  return out;
}

}  // namespace poslab
