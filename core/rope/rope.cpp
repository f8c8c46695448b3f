// RoPE frequencies, context extension and rotations (formulas: ../shared/spec and
// README's references; the reference implementations were read, not copied).
#include "core/rope/rope.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "core/rope/rope_messages.hpp"

namespace poslab {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Rotate the R rotary dims of each row by angle * sign; cos/sin optionally scaled.
RowMatrix rotate_rows(const RopeParams& p, const RowMatrix& x, const std::vector<double>& angle_pos,
                      double sign, double table_scale) {
  rope_validate(p);
  if (x.cols() != p.head_dim)
    throw InputError("x has " + std::to_string(x.cols()) +
                     " columns but head_dim = " + std::to_string(p.head_dim));
  if (static_cast<size_t>(x.rows()) != angle_pos.size())
    throw InputError("x has " + std::to_string(x.rows()) + " rows but " +
                     std::to_string(angle_pos.size()) + " positions were given");
  const Eigen::VectorXd inv = rope_inv_freq(p);
  RowMatrix out = x;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    for (int i = 0; i < rope_num_pairs(p); ++i) {
      const double a = sign * angle_pos[t] * inv[i];
      const double c = std::cos(a) * table_scale, s = std::sin(a) * table_scale;
      const auto [d0, d1] = rope_pair_dims(p, i);
      out(t, d0) = x(t, d0) * c - x(t, d1) * s;
      out(t, d1) = x(t, d0) * s + x(t, d1) * c;
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& rope_layout_names() {
  static const std::vector<std::string> names{"interleaved", "half"};
  return names;
}

const std::vector<std::string>& rope_scaling_names() {
  static const std::vector<std::string> names{"none", "linear", "ntk", "dynamic", "yarn", "llama3"};
  return names;
}

RopeLayout rope_layout_from_name(const std::string& name) {
  return enum_from_name<RopeLayout>("layout", name, rope_layout_names());
}

RopeScaling rope_scaling_from_name(const std::string& name) {
  return enum_from_name<RopeScaling>("scaling", name, rope_scaling_names());
}

void rope_validate(const RopeParams& p) {
  require_in_range("head_dim", p.head_dim, RopeParams::head_dim_range);
  if (p.head_dim % 2 != 0)
    throw InputError(rope_message("wheels.message.head_dim_odd",
                                  {message_arg("dim", std::to_string(p.head_dim))}));
  require_in_range("rotary_fraction", p.rotary_fraction, RopeParams::rotary_fraction_range);
  require_in_range("base", p.base, RopeParams::base_range, "base must be greater than 1");
  require_in_range("factor", p.factor, RopeParams::factor_range, "s = 1 means no extension");
  require_in_range("original_context", p.original_context, RopeParams::original_context_range);
  require_in_range("current_length", p.current_length, RopeParams::current_length_range);
  require_in_range("yarn_beta_fast", p.yarn_beta_fast, RopeParams::beta_range);
  require_in_range("yarn_beta_slow", p.yarn_beta_slow, RopeParams::beta_range);
  if (p.yarn_beta_fast <= p.yarn_beta_slow)
    throw InputError(rope_message("wheels.message.yarn_beta_order",
                                  {message_arg("fast", format_double(p.yarn_beta_fast)),
                                   message_arg("slow", format_double(p.yarn_beta_slow))}));
  require_in_range("yarn_attention_factor", p.yarn_attention_factor,
                   RopeParams::attention_factor_range);
  require_in_range("llama3_low_freq_factor", p.llama3_low_freq_factor,
                   RopeParams::llama3_factor_range);
  require_in_range("llama3_high_freq_factor", p.llama3_high_freq_factor,
                   RopeParams::llama3_factor_range);
  if (p.llama3_high_freq_factor <= p.llama3_low_freq_factor)
    throw InputError(rope_message("wheels.message.llama3_factor_order"));
}

int rope_rotary_dim(const RopeParams& p) {
  const int r = 2 * static_cast<int>(std::floor(p.head_dim * p.rotary_fraction / 2.0 + 1e-9));
  return std::clamp(r, 2, p.head_dim);
}

int rope_num_pairs(const RopeParams& p) {
  return rope_rotary_dim(p) / 2;
}

Eigen::VectorXd rope_inv_freq_original(const RopeParams& p) {
  const int r = rope_rotary_dim(p);
  Eigen::VectorXd inv(r / 2);
  for (int i = 0; i < r / 2; ++i) inv[i] = std::pow(p.base, -2.0 * i / r);
  return inv;
}

double rope_effective_base(const RopeParams& p) {
  const int r = rope_rotary_dim(p);
  // With R = 2 the only pair has inv_freq = b^0 = 1 whatever the base: nothing to rescale.
  if (r == 2) return p.base;
  const double exponent = static_cast<double>(r) / (r - 2);
  if (p.scaling == RopeScaling::ntk) return p.base * std::pow(p.factor, exponent);
  if (p.scaling == RopeScaling::dynamic_ntk && p.current_length > p.original_context) {
    const double grow = p.factor * p.current_length / p.original_context - (p.factor - 1.0);
    return p.base * std::pow(grow, exponent);
  }
  return p.base;
}

YarnBounds rope_yarn_bounds(const RopeParams& p) {
  const int r = rope_rotary_dim(p);
  auto correction_dim = [&](double turns) {
    return r * std::log(p.original_context / (turns * kTwoPi)) / (2.0 * std::log(p.base));
  };
  YarnBounds b{};
  b.low_dim = correction_dim(p.yarn_beta_fast);
  b.high_dim = correction_dim(p.yarn_beta_slow);
  b.low = std::max(static_cast<int>(std::floor(b.low_dim)), 0);
  b.high = std::min(static_cast<int>(std::ceil(b.high_dim)), r - 1);
  // Keep both inside [0, R-1] even for extreme contexts (the reference clamps one side each).
  b.low = std::min(b.low, r - 1);
  b.high = std::max(b.high, 0);
  return b;
}

Eigen::VectorXd rope_yarn_keep(const RopeParams& p) {
  const YarnBounds b = rope_yarn_bounds(p);
  double lo = b.low, hi = b.high;
  if (lo == hi) hi += 0.001;  // the reference avoids a zero-width ramp this way
  Eigen::VectorXd keep(rope_num_pairs(p));
  for (int i = 0; i < keep.size(); ++i) keep[i] = 1.0 - std::clamp((i - lo) / (hi - lo), 0.0, 1.0);
  return keep;
}

Eigen::VectorXd rope_inv_freq(const RopeParams& p) {
  Eigen::VectorXd inv = rope_inv_freq_original(p);
  const double s = p.factor;
  switch (p.scaling) {
    case RopeScaling::none:
      return inv;
    case RopeScaling::linear:
      return inv / s;
    case RopeScaling::ntk:
    case RopeScaling::dynamic_ntk: {
      RopeParams q = p;
      q.base = rope_effective_base(p);
      return rope_inv_freq_original(q);
    }
    case RopeScaling::yarn: {
      const Eigen::VectorXd keep = rope_yarn_keep(p);
      for (int i = 0; i < inv.size(); ++i) inv[i] = (1.0 - keep[i]) * inv[i] / s + keep[i] * inv[i];
      return inv;
    }
    case RopeScaling::llama3: {
      const double L = p.original_context;
      const double low_wavelen = L / p.llama3_low_freq_factor;
      const double high_wavelen = L / p.llama3_high_freq_factor;
      for (int i = 0; i < inv.size(); ++i) {
        const double wavelen = kTwoPi / inv[i];
        if (wavelen < high_wavelen) continue;
        if (wavelen > low_wavelen) {
          inv[i] /= s;
          continue;
        }
        const double smooth = (L / wavelen - p.llama3_low_freq_factor) /
                              (p.llama3_high_freq_factor - p.llama3_low_freq_factor);
        inv[i] = (1.0 - smooth) * inv[i] / s + smooth * inv[i];
      }
      return inv;
    }
  }
  return inv;
}

Eigen::VectorXd rope_wavelengths(const Eigen::VectorXd& inv_freq) {
  return (kTwoPi / inv_freq.array()).matrix();
}

Eigen::VectorXd rope_turns_in_context(const RopeParams& p) {
  return (p.original_context / rope_wavelengths(rope_inv_freq_original(p)).array()).matrix();
}

double rope_attention_scale(const RopeParams& p) {
  if (p.scaling != RopeScaling::yarn) return 1.0;
  if (p.yarn_attention_factor > 0) return p.yarn_attention_factor;
  return p.factor <= 1.0 ? 1.0 : 0.1 * std::log(p.factor) + 1.0;
}

std::vector<PairBand> rope_pair_bands(const RopeParams& p) {
  const Eigen::VectorXd orig = rope_inv_freq_original(p), scaled = rope_inv_freq(p);
  std::vector<PairBand> bands(orig.size());
  for (int i = 0; i < orig.size(); ++i) {
    const double ratio = scaled[i] / orig[i];
    if (std::abs(ratio - 1.0) < 1e-9)
      bands[i] = PairBand::kept;
    else if (std::abs(ratio * p.factor - 1.0) < 1e-9)
      bands[i] = PairBand::interpolated;
    else
      bands[i] = PairBand::blended;
  }
  return bands;
}

RowMatrix rope_angles(const RopeParams& p, const std::vector<double>& positions) {
  const Eigen::VectorXd inv = rope_inv_freq(p);
  RowMatrix a(positions.size(), inv.size());
  for (size_t t = 0; t < positions.size(); ++t)
    for (int i = 0; i < inv.size(); ++i) a(t, i) = positions[t] * inv[i];
  return a;
}

std::pair<int, int> rope_pair_dims(const RopeParams& p, int pair) {
  if (p.layout == RopeLayout::interleaved) return {2 * pair, 2 * pair + 1};
  return {pair, pair + rope_num_pairs(p)};
}

RowMatrix rope_apply(const RopeParams& p, const RowMatrix& x, const std::vector<double>& positions,
                     bool temperature_in_tables) {
  return rotate_rows(p, x, positions, +1.0, temperature_in_tables ? rope_attention_scale(p) : 1.0);
}

RowMatrix rope_apply_inverse(const RopeParams& p, const RowMatrix& x,
                             const std::vector<double>& positions, bool temperature_in_tables) {
  return rotate_rows(p, x, positions, -1.0, temperature_in_tables ? rope_attention_scale(p) : 1.0);
}

RowMatrix rope_reencode(const RopeParams& p, const RowMatrix& x,
                        const std::vector<double>& old_positions,
                        const std::vector<double>& new_positions) {
  if (old_positions.size() != new_positions.size())
    throw InputError("re-encode: " + std::to_string(old_positions.size()) + " old positions but " +
                     std::to_string(new_positions.size()) + " new positions");
  std::vector<double> delta(old_positions.size());
  for (size_t t = 0; t < delta.size(); ++t) delta[t] = new_positions[t] - old_positions[t];
  return rotate_rows(p, x, delta, +1.0, 1.0);
}

RowMatrix rope_apply_mixed_layouts(const RopeParams& p, const RowMatrix& x,
                                   const std::vector<double>& positions) {
  rope_validate(p);
  const int r = rope_rotary_dim(p), half = r / 2;
  const Eigen::VectorXd inv = rope_inv_freq(p);
  RowMatrix out = x;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    for (int j = 0; j < r; ++j) {
      const double a = positions[t] * inv[j / 2];  // interleaved table: theta0, theta0, theta1, ...
      const double rot = j < half ? -x(t, j + half) : x(t, j - half);  // rotate_half
      out(t, j) = x(t, j) * std::cos(a) + rot * std::sin(a);
    }
  }
  return out;
}

Eigen::VectorXd rope_apply(const RopeParams& p, const Eigen::VectorXd& x, double position) {
  RowMatrix m = x.transpose();
  return rope_apply(p, m, std::vector<double>{position}).row(0).transpose();
}

Eigen::VectorXd rope_score_vs_distance(const RopeParams& p, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& k,
                                       const std::vector<double>& deltas) {
  const double m2 = rope_attention_scale(p) * rope_attention_scale(p);
  const Eigen::VectorXd q0 = rope_apply(p, q, 0.0);
  RowMatrix ks(deltas.size(), k.size());
  for (size_t t = 0; t < deltas.size(); ++t) ks.row(t) = k.transpose();
  const RowMatrix rotated = rope_apply(p, ks, deltas);
  return m2 * (rotated * q0);
}

std::vector<double> rope_relative_upper_bound(const RopeParams& p,
                                              const std::vector<double>& deltas) {
  const Eigen::VectorXd theta = rope_inv_freq(p);  // (P)
  const Eigen::Index P = theta.size();
  std::vector<double> out;
  out.reserve(deltas.size());
  for (const double d : deltas) {
    double re = 0, im = 0, sum = 0;  // S_j, accumulated pair by pair
    for (Eigen::Index i = 0; i < P; ++i) {
      re += std::cos(d * theta(i));
      im += std::sin(d * theta(i));
      sum += std::hypot(re, im);
    }
    out.push_back(P > 0 ? sum / static_cast<double>(P) : 0.0);
  }
  return out;
}

std::vector<int> rope_interleaved_to_half_permutation(const RopeParams& p) {
  const int r = rope_rotary_dim(p), half = r / 2;
  std::vector<int> perm(p.head_dim);
  for (int j = 0; j < p.head_dim; ++j) perm[j] = j;
  for (int i = 0; i < half; ++i) {
    perm[2 * i] = i;
    perm[2 * i + 1] = i + half;
  }
  return perm;
}

}  // namespace poslab
