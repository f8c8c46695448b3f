// Rotary position embedding (RoPE): frequencies, context-extension scaling, and rotating
// vectors forward, backward and from old positions to new ones. All angles are computed
// in double precision (a float32 angle m·θ is off by about m·6e-8 rad, whole radians only past
// position ~1.7e7).
//
// Shapes: T = tokens, D = head dim, R = rotary dims (D, or fewer with partial rotary),
//         P = R/2 frequency pairs. x is (T, D), one row per token; positions has T entries.
//
// The two layouts pair dimensions differently (R = 8 shown, c = cos, s = sin part):
//   interleaved (RoFormer, GPT-J, Meta LLaMA):  pairs (0,1) (2,3) (4,5) (6,7)   [x0 y0 x1 y1 ...]
//   half_split  (GPT-NeoX, HF LLaMA, Qwen2):     pairs (0,4) (1,5) (2,6) (3,7)   [x0 x1 x2 x3 y0 y1
//   y2 y3]
// Pair i always turns at frequency theta_i; only where its two numbers live differs.
#pragma once
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "core/common/param_range.hpp"

namespace poslab {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class RopeLayout { interleaved, half_split };
enum class RopeScaling { none, linear, ntk, dynamic_ntk, yarn, llama3 };

// Everything that fixes the rotary frequencies. Ranges are the valid ranges.
struct RopeParams {
  int head_dim = 128;            // D: dims per head; even, [2, 512]
  double rotary_fraction = 1.0;  // share of D that is rotated (partial rotary), (0, 1]
  double base = 10000.0;         // b (rope_theta), (1, 1e12]
  RopeLayout layout = RopeLayout::half_split;
  RopeScaling scaling = RopeScaling::none;
  double factor = 4.0;             // s: context-extension factor, [1, 1024] (ignored by none)
  int original_context = 4096;     // L: trained context in tokens, [1, 1e8]
  double current_length = 8192.0;  // dynamic NTK only: tokens in the running sequence, [1, 1e9]
  double yarn_beta_fast = 32.0;    // YaRN beta: pairs with more turns than this are kept, (0, 1e4]
  double yarn_beta_slow = 1.0;     // YaRN alpha: pairs with fewer turns are interpolated, (0, 1e4]
  double yarn_attention_factor = 0.0;    // YaRN temperature; 0 = default 0.1 ln s + 1, else [0, 10]
  double llama3_low_freq_factor = 1.0;   // llama3: wavelengths > L/low are divided by s, (0, 1e3]
  double llama3_high_freq_factor = 4.0;  // llama3: wavelengths < L/high are kept, (0, 1e3]

  bool operator==(const RopeParams&) const = default;

  static constexpr ParamRange head_dim_range{2, 512};
  static constexpr ParamRange rotary_fraction_range{1e-9, 1};
  static constexpr ParamRange base_range{1.000001, 1e12};
  static constexpr ParamRange factor_range{1, 1024};
  static constexpr ParamRange original_context_range{1, 1e8};
  static constexpr ParamRange current_length_range{1, 1e9};
  static constexpr ParamRange beta_range{1e-6, 1e4};
  static constexpr ParamRange attention_factor_range{0, 10};
  static constexpr ParamRange llama3_factor_range{1e-6, 1e3};
};

// Throws InputError naming the first bad field (odd dim, base <= 1, factor out of range...).
void rope_validate(const RopeParams& p);

// Names for text I/O ("interleaved" / "half"; "none", "linear", "ntk", "dynamic", "yarn",
// "llama3").
const std::vector<std::string>& rope_layout_names();
const std::vector<std::string>& rope_scaling_names();
RopeLayout rope_layout_from_name(const std::string& name);    // throws InputError
RopeScaling rope_scaling_from_name(const std::string& name);  // throws InputError

// ---- Derived values (functions, never stored) -----------------------------------------
int rope_rotary_dim(const RopeParams& p);  // R: even, >= 2, <= D
int rope_num_pairs(const RopeParams& p);   // P = R/2

// inv_freq_i = b^(-2i/R) without any scaling, i = 0..P-1. Pair 0 is the fastest.
Eigen::VectorXd rope_inv_freq_original(const RopeParams& p);
// Frequencies after the chosen context extension (equal to the original for `none`).
Eigen::VectorXd rope_inv_freq(const RopeParams& p);
// lambda_i = 2*pi / inv_freq_i, in tokens.
Eigen::VectorXd rope_wavelengths(const Eigen::VectorXd& inv_freq);
// r_i = L / lambda_i: full turns pair i makes within the trained context.
Eigen::VectorXd rope_turns_in_context(const RopeParams& p);
// Base actually used: b*s^(R/(R-2)) for ntk, the dynamic formula for dynamic_ntk, else b.
double rope_effective_base(const RopeParams& p);
// Factor multiplying cos and sin (YaRN mscale; logits scale by its square). 1 unless yarn.
double rope_attention_scale(const RopeParams& p);

// YaRN's interpolation ramp over pair index (reference code): gamma_i = 1 keeps theta_i,
// gamma_i = 0 divides it by s. low/high are the pair indices where the ramp starts/ends.
struct YarnBounds {
  double low_dim;   // unclamped correction dim of beta_fast
  double high_dim;  // unclamped correction dim of beta_slow
  int low;          // floor(low_dim) clamped to [0, R-1]
  int high;         // ceil(high_dim) clamped to [0, R-1]
};
YarnBounds rope_yarn_bounds(const RopeParams& p);
Eigen::VectorXd rope_yarn_keep(const RopeParams& p);  // gamma_i per pair, in [0, 1]

// What context extension does to each pair (for banding the wheels).
enum class PairBand { kept, blended, interpolated };
std::vector<PairBand> rope_pair_bands(const RopeParams& p);

// ---- Angles and rotations ------------------------------------------------------------
// (T, P) angles m_t * inv_freq_i (scaled frequencies), in radians, not reduced.
RowMatrix rope_angles(const RopeParams& p, const std::vector<double>& positions);

// Which dims hold pair i: {first, second}. Depends on the layout.
std::pair<int, int> rope_pair_dims(const RopeParams& p, int pair);

// Rotate every row t of x (T, D) by +angle(positions[t]). Dims past R are left alone.
// With temperature_in_tables the cos/sin tables carry rope_attention_scale (as HF YaRN does).
RowMatrix rope_apply(const RopeParams& p, const RowMatrix& x, const std::vector<double>& positions,
                     bool temperature_in_tables = false);
// x*cos - rotate_half(x)*sin: a rotation by -angle. With temperature_in_tables the same
// scaled tables are used, so inverse(apply(x)) = mscale^2 * x, not x (the YaRN pitfall).
RowMatrix rope_apply_inverse(const RopeParams& p, const RowMatrix& x,
                             const std::vector<double>& positions,
                             bool temperature_in_tables = false);
// Move keys computed at old positions to new positions with ONE rotation by (new - old),
// the difference taken in double before the sine: exact, and what a K-shift does.
RowMatrix rope_reencode(const RopeParams& p, const RowMatrix& x,
                        const std::vector<double>& old_positions,
                        const std::vector<double>& new_positions);

// The broken variant of seed 004's defect 1: angles laid out interleaved, rotated as
// halves. Not a rotation. Kept to demonstrate what mixing the layouts breaks.
RowMatrix rope_apply_mixed_layouts(const RopeParams& p, const RowMatrix& x,
                                   const std::vector<double>& positions);

// Vector forms (one token).
Eigen::VectorXd rope_apply(const RopeParams& p, const Eigen::VectorXd& x, double position);

// <R(m) q, R(m + delta) k> for each delta, times rope_attention_scale^2: the long-range
// decay curve of a fixed query/key pair. Independent of m (checked by the tests).
Eigen::VectorXd rope_score_vs_distance(const RopeParams& p, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& k, const std::vector<double>& deltas);

// RoFormer's relative upper bound (Su et al. 2021, section 3.4.3, Figure 2) at each delta:
// (1 / P) * sum_{j=1..P} |S_j(delta)|, S_j = sum_{i<j} e^(i delta theta_i), P pairs with the
// scaled frequencies. |score(delta)| <= (max_i |h_i - h_{i+1}|) * P * this for any q, k, so
// it bounds how far any pair can attend at that distance; it falls with delta smoothly,
// where a fixed pair's curve (or q = k = ones) oscillates, most with few pairs (head dim 16).
// Equals 1/P * sum_j j at delta = 0 (every term in phase).
std::vector<double> rope_relative_upper_bound(const RopeParams& p,
                                              const std::vector<double>& deltas);

// Permutation taking an interleaved head vector to the half-split layout:
// half[perm[j]] = inter[j]. Converted checkpoints permute W_q/W_k rows this way.
std::vector<int> rope_interleaved_to_half_permutation(const RopeParams& p);

}  // namespace poslab
