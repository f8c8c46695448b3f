// The attention lab's model: tokens with seeded content vectors, a position encoding, seeded
// W_q / W_k per head, and the scores, softmax weights and per-cell term split that the lab
// draws. One parameter struct selects the encoding; switches isolate content or position.
//
// Shapes: T = tokens, D = model dims, H = heads, Dh = head dim.
//   content c is (T, D); absolute encoding p is (T, D); W_q, W_k are (D, Dh) per head;
//   q, k are (T, Dh) per head; bias, scores, weights are (T, T) per head (row = query).
// How position enters, by encoding kind:
//   absolute (sin, learned, 2-D sin-cos): x = c + p, q = x W_q, k = x W_k
//   rotary   (RoPE):                      q = R(pos) c W_q, k = R(pos) c W_k
//   bias     (ALiBi, T5, Swin, elevation): logits get + b[i][j] after scaling
// Logits are scaled by 1/sqrt(Dh) (T5: no scale).
#pragma once
#include <Eigen/Dense>
#include <atomic>
#include <string>
#include <vector>

#include "core/common/message.hpp"
#include "core/common/param_range.hpp"
#include "core/position/encodings.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_table.hpp"

namespace poslab {

using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class AttentionEncoding {
  none,               // no position information at all
  sinusoidal,         // Vaswani sinusoid, interleaved [sin cos sin cos ...]
  sinusoidal_concat,  // the same numbers concatenated [sin ... | cos ...] (tensor2tensor)
  learned,            // learned absolute table (seeded stand-in), rows 0 .. table_length-1
  rope,               // rotary (core/rope)
  alibi,              // linear distance bias, one slope per head
  t5,                 // T5 log buckets, one scalar per (bucket, head)
  swin,               // Swin 2-D relative bias table over the grid (window = whole grid)
  sincos_2d,          // 2-D sin-cos of (row, col), MAE / ClimaX initialisation
  elevation,          // TopoFlow elevation bias over a seeded terrain (not a position encoding)
};
enum class EncodingKind { none, absolute, rotary, bias };

// Text names ("none", "sin", "sin_concat", "learned", "rope", "alibi", "t5", "swin",
// "sincos2d", "elevation"), in enum order.
const std::vector<std::string>& attention_encoding_names();
AttentionEncoding attention_encoding_from_name(const std::string& name);  // throws InputError
const char* attention_encoding_name(AttentionEncoding e);
// A label for people, naming the variant ("sinusoidal, interleaved [sin cos sin cos ...]").
const char* attention_encoding_label(AttentionEncoding e);
EncodingKind attention_encoding_kind(AttentionEncoding e);
// True for the encodings whose logits depend only on position differences (RoPE, ALiBi,
// T5, Swin), so adding k to every position changes nothing. None and elevation are also
// unchanged by a shift, but because they ignore positions altogether.
bool attention_encoding_is_relative(AttentionEncoding e);

inline constexpr int kAttentionMaxTokens = 1024;  // the lab's (and the CLI's) limit

struct AttentionParams {
  AttentionEncoding encoding = AttentionEncoding::rope;
  int heads = 4;       // H: attention heads, [1, 64]
  int model_dim = 64;  // D: content / absolute-encoding dims, even, [4, 1024] (x4 for sincos2d)
  int head_dim = 16;   // Dh: dims per head after W_q / W_k, even, [2, 256]
  int seed = 1;        // seeds content, W_q/W_k, tables and terrain, [0, 2^31-1]
  bool use_content = true;        // token content enters q and k (off: position alone)
  bool use_position = true;       // the encoding enters (off: content alone)
  bool causal = false;            // keys after the query are masked (decoder)
  double sin_base = 10000.0;      // base of sinusoidal and 2-D sin-cos frequencies, [2, 1e9]
  int table_length = 64;          // learned table rows = trained length L, [1, 4096]
  double learned_std = 1.0;       // std of the seeded learned rows, [0.001, 10]
  RopeParams rope;                // RoPE: base b and layout (RopeParams ranges; scores agree across
                                  // layouts); head_dim follows Dh, set by attention_rope_params
  bool rope_mixed = false;        // the mixed-layout bug (lesson 5): angles laid out interleaved,
                                  // rotated as halves; not a rotation, scores lose n - m
  bool t5_bidirectional = true;   // T5 encoder (both signs) or decoder (past only)
  int t5_buckets = 32;            // T5 num_buckets, even, [2, 256]
  int t5_max_distance = 128;      // T5 max_distance in tokens, [2, 1e6]
  double bias_std = 1.0;          // std of the seeded T5 / Swin bias tables, [0, 10]
  double elevation_alpha = 1.0;   // TopoFlow alpha (learnable, init 1), [0, 100]
  double terrain_max_m = 3000.0;  // highest point of the seeded terrain in metres, [0, 9000]

  bool operator==(const AttentionParams&) const = default;

  static constexpr ParamRange heads_range{1, 64};
  static constexpr ParamRange model_dim_range{4, 1024};
  static constexpr ParamRange head_dim_range{2, 256};
  static constexpr ParamRange seed_range{0, 2147483647};
  static constexpr ParamRange sin_base_range{2, 1e9};
  static constexpr ParamRange table_length_range{1, 4096};
  static constexpr ParamRange learned_std_range{0.001, 10};
  static constexpr ParamRange t5_buckets_range{2, 256};
  static constexpr ParamRange t5_max_distance_range{2, 1e6};
  static constexpr ParamRange bias_std_range{0, 10};
  static constexpr ParamRange elevation_alpha_range{0, 100};
  static constexpr ParamRange terrain_max_range{0, 9000};
};

// Throws InputError naming the first bad field.
void attention_validate(const AttentionParams& p);
// Multiplier of q.k: 1/sqrt(Dh), or 1 for T5 (which does not scale).
double attention_scale(const AttentionParams& p);
// The RoPE setting used for q and k (Dh, base, layout; no context extension).
RopeParams attention_rope_params(const AttentionParams& p);

// Where the tokens are. Builders below fill every field consistently.
struct AttentionInput {
  std::vector<std::string> tokens;  // T token texts; a token's content is seeded by its text
  std::vector<double> positions;    // T 1-D positions (index + shift)
  std::vector<double> rows, cols;   // T 2-D coordinates (grid cell + shift), for sincos2d / Swin
  std::vector<int> cells;  // T ground cells r * grid_cols + c, for the terrain (never shifted)
  int grid_rows = 1, grid_cols = 1;  // terrain size and Swin window
};

// A sentence: token t at position t + shift, on a 1 x T strip of ground.
AttentionInput attention_sequence_input(std::vector<std::string> tokens, double shift = 0);
// `count` distinct tokens "t0", "t1", ... (for sizes without a sentence).
AttentionInput attention_count_input(int count, double shift = 0);
// A rows x cols patch grid in raster order; patch (r, c) is token r * cols + c, named "r,c".
AttentionInput attention_grid_input(int rows, int cols, double shift = 0);
// The same input with k added to every position and 2-D coordinate (cells stay).
AttentionInput attention_shift_input(const AttentionInput& in, double k);
// Tokens reordered: token t of the result is token order[t] of `in`; positions, coordinates
// and cells stay with their slots (the sentence is rewritten, the slots are not moved).
AttentionInput attention_reorder_tokens(const AttentionInput& in, const std::vector<int>& order);
// Throws InputError for 0 or more than kAttentionMaxTokens tokens or inconsistent fields.
void attention_input_validate(const AttentionInput& in);

// Everything seeded, built once per (params, input); the scores are computed from it.
struct AttentionModel {
  AttentionParams params;
  AttentionInput input;
  RowMatrix content;   // (T, D) c_t, seeded by (seed, token text)
  RowMatrix encoding;  // (T, D) p_t for absolute encodings (NaN row = no embedding), else empty
  std::vector<RowMatrix> w_q, w_k;  // H x (D, Dh), entries ~ N(0, 1/D)
  std::vector<int> missing;         // tokens whose position has no learned row
  RowMatrix terrain;                // (grid_rows, grid_cols) metres, elevation only, else empty
  RowMatrix bias_table;             // T5: (buckets, H); Swin: ((2Wh-1)(2Ww-1), H); else empty
  RopeTable rope;  // RoPE with position on: cos/sin at input.positions, built once (else empty)
};
AttentionModel attention_build(const AttentionParams& p, const AttentionInput& in);

// q or k of one head, (T, Dh), with the switches and the encoding applied (unscaled).
RowMatrix attention_queries(const AttentionModel& m, int head);
RowMatrix attention_keys(const AttentionModel& m, int head);
// The additive logit bias of one head, (T, T); zeros for encodings without a bias or with
// use_position off.
RowMatrix attention_bias(const AttentionModel& m, int head);
// One entry of attention_bias (what hover shows without building the matrix).
double attention_bias_cell(const AttentionModel& m, int head, int query, int key);

struct AttentionHeadResult {
  RowMatrixF scores;   // (T, T) logits before softmax; -inf masked, NaN undefined
  RowMatrixF weights;  // (T, T) softmax rows; 0 masked, NaN rows where a visible key is undefined
  RowMatrixF bias;     // (T, T) additive bias, only for bias encodings (else empty)
};
struct AttentionResult {
  std::vector<AttentionHeadResult> heads;  // H
  double scale = 1;                        // the 1/sqrt(Dh) (or 1) used
  std::vector<int> missing;                // tokens without a learned position row
  std::string note;                        // what a reader must know (missing rows), else empty
  Message note_message;                    // the same, translatable (note == its text)
};
// All heads, or with only_head >= 0 just that one (heads still has H entries; the others
// are left empty, 0 x 0): the app shows one head, and 64 heads of 1024^2 cells would be
// half a gigabyte. If `cancel` becomes true the computation stops early and returns what
// it has: used by the app when inputs change mid-way.
AttentionResult attention_compute(const AttentionModel& m,
                                  const std::atomic<bool>* cancel = nullptr, int only_head = -1);

// One cell's logit split into its parts (all already scaled). For absolute encodings
// q.k = (c_i + p_i) W_q . (c_j + p_j) W_k splits into four terms; RoPE's score is not a
// sum, so `rotation` holds (rotated - unrotated); bias encodings add `bias`.
struct ScoreTerms {
  double content_content = 0;    // c_i W_q . c_j W_k  (RoPE: unrotated q . k)
  double content_position = 0;   // c_i W_q . p_j W_k
  double position_content = 0;   // p_i W_q . c_j W_k
  double position_position = 0;  // p_i W_q . p_j W_k
  double rotation = 0;           // RoPE: what rotating q and k changed
  double bias = 0;               // ALiBi / T5 / Swin / elevation
  double total = 0;              // the logit: -inf when masked, NaN when undefined
  bool masked = false;           // key after the query under the causal mask
  bool undefined = false;        // a position without a learned row
};
ScoreTerms attention_score_terms(const AttentionModel& m, int head, int query, int key);
// The terms a reader sees for one cell, named for the model's encoding kind (absolute: the
// four content/position products; RoPE: unrotated score and rotation; bias: content and
// bias). They sum to t.total whenever the cell is defined and visible (tests check this
// against the computed logits, 1-D and 2-D encodings alike); the tooltips list exactly these.
struct NamedTerm {
  const char* label;
  double value;
};
std::vector<NamedTerm> attention_score_term_list(const AttentionModel& m, const ScoreTerms& t);

// T5 bucket of every (query, key) pair, (T, T), from the 1-D positions.
Eigen::MatrixXi attention_t5_buckets(const AttentionModel& m);

}  // namespace poslab
