// The attention lab's side-by-side comparisons and one-click demos, computed here so the
// app only draws them: two encodings or two orderings and their difference, permutation,
// shift by k, extrapolation past the trained length, RoPE's distance decay.
//
// Shapes: T tokens, H heads; every matrix is (T, T), row = query, column = key.
#pragma once
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/common/message.hpp"

namespace poslab {

// A and B with B re-indexed onto A's tokens: diff(i, j) = B(s(i), s(j)) - A(i, j) where
// s(i) is the slot of A's token i in B (identity unless the orderings differ). Cells
// masked or undefined on either side are NaN in the difference and skipped in the maxima.
struct AttentionComparison {
  AttentionModel model_a, model_b;
  AttentionResult a, b;
  std::vector<int> align;               // T: s(i)
  std::vector<RowMatrixF> score_diff;   // H x (T, T)
  std::vector<RowMatrixF> weight_diff;  // H x (T, T)
  double max_abs_score_diff = 0;        // over all heads and comparable cells
  double max_abs_weight_diff = 0;
  long long incomparable_cells = 0;  // cells skipped (masked / undefined on a side)
  std::string note;                  // one line for the reader (English)
  Message note_message;              // the same note, translatable (note == note_message.text)
};

// Both models must have the same heads and tokens count; throws InputError otherwise.
// only_head >= 0 computes that head alone (the other heads' matrices stay empty).
AttentionComparison attention_compare(AttentionModel a, AttentionModel b,
                                      std::vector<int> align = {}, int only_head = -1);

// Where each token of `a` sits in `b` when b is a reordering of a (same tokens, any order;
// repeated tokens are matched in order). Throws InputError naming a token that differs.
std::vector<int> attention_ordering_alignment(const std::vector<std::string>& a,
                                              const std::vector<std::string>& b);

// Two encodings over the same tokens (params_b = params_a with another encoding).
AttentionComparison attention_compare_encodings(const AttentionParams& p, AttentionEncoding other,
                                                const AttentionInput& in, int only_head = -1);
// The same sentence in two orders (e.g. 我 喜欢 你 vs 你 喜欢 我), aligned by token.
AttentionComparison attention_compare_orderings(const AttentionParams& p, const AttentionInput& a,
                                                const AttentionInput& b, int only_head = -1);
// Permutation demo: B has A's tokens in `order` (token t of B = token order[t] of A).
// Without an encoding (and without the causal mask) the aligned difference is zero.
AttentionComparison attention_permutation_demo(const AttentionParams& p, const AttentionInput& in,
                                               const std::vector<int>& order, int only_head = -1);
// The reversal permutation [T-1, ..., 0], the default order of the permutation demo.
std::vector<int> attention_reversal(int tokens);
// Shift demo: B adds k to every position. Zero difference for RoPE, ALiBi, T5, Swin;
// non-zero for absolute encodings.
AttentionComparison attention_shift_demo(const AttentionParams& p, const AttentionInput& in,
                                         double k, int only_head = -1);

// The slowest rotary pair's angle against position (radians, not reduced: rope_angles'
// last column). angle[m] > trained_max exactly when m >= trained_length.
struct RopeAngleReach {
  int pair = -1;              // index of the slowest pair (P - 1), -1 when not RoPE
  double inv_freq = 0;        // theta_min, radians per position
  std::vector<double> angle;  // T: m * theta_min for positions m = 0 .. T-1
  double trained_max = 0;     // (L - 1) * theta_min: the largest angle training saw
  bool operator==(const RopeAngleReach&) const = default;
};
RopeAngleReach rope_slowest_pair_reach(const RopeParams& p, int tokens, int trained_length);

// Extrapolation demo: `tokens` positions 0 .. tokens-1 when the model was trained on
// `trained_length` (the learned table's length). Per query row, the entropy of its
// weights (nats) and its largest weight, so the change past the trained length shows.
struct ExtrapolationDemo {
  AttentionModel model;
  AttentionResult result;
  int trained_length = 0;
  std::vector<std::vector<double>>
      row_entropy;                           // H x T, NaN for undefined rows (empty: head skipped)
  std::vector<std::vector<double>> row_max;  // H x T (empty: head skipped)
  std::string note;                          // what this encoding does past L (English)
  Message note_message;                      // the same, translatable (note == its text)
  // RoPE only (empty otherwise): what DOES change at L while the weights are random. The
  // slowest rotary pair (the last, frequency theta_min) turns by m * theta_min at position m;
  // training saw positions 0 .. L-1, so angles 0 .. (L-1) * theta_min. Past L that pair
  // reaches angles no trained position had (the faster pairs wrapped many times already).
  RopeAngleReach slowest_pair;
};
ExtrapolationDemo attention_extrapolation_demo(const AttentionParams& p, int tokens,
                                               int only_head = -1);

// RoPE distance decay: score(delta) / sqrt(Dh) for q = k = all ones (RoFormer's bound)
// and for the seeded content q of the first token and k of the second (head `head`).
// `bound`: RoFormer's relative upper bound (rope_relative_upper_bound), scaled to start where
// the ones curve starts and averaged over a centred window of +-points/16 samples: the smooth
// trend the random-weights view plots beside the two oscillating curves.
struct RopeDecay {
  std::vector<double> deltas;
  std::vector<double> ones;
  std::vector<double> content;
  std::vector<double> bound;
};
RopeDecay attention_rope_decay(const AttentionModel& m, int head, int max_distance, int points);

// Entropy (nats) of each row of a weights matrix; NaN rows give NaN.
std::vector<double> attention_row_entropy(const RowMatrixF& weights);

}  // namespace poslab
