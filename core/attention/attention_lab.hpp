// The attention lab's whole state that a preset restores: the model parameters, where the
// tokens come from (sentence, token count or patch grid), the side-by-side and demo
// choices, and what is looked at (head, scores or weights, query patch). Plain data; the
// app's panel draws it and `poslab-cli attention --preset` reads the same strings.
#pragma once
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/attention/attention_trained.hpp"
#include "core/attention/demos.hpp"
#include "core/common/color_scale.hpp"
#include "core/common/preset_fields.hpp"

namespace poslab {

enum class AttentionSource { sentence, count, grid };
enum class AttentionCompare { off, encodings, orderings };
enum class AttentionDemo {
  none,
  permutation,
  shift,
  extrapolation,
  rope_decay,
  alibi_slopes,
  t5_buckets
};

struct AttentionLabSettings {
  AttentionParams params;  // encoding, heads, dims, seed, switches, tables
  AttentionSource source = AttentionSource::sentence;
  // A 7-word sentence by default: enough tokens for a pattern, few enough for the numbers
  // to fit in the heatmap's cells (3 words made a 3x3 map with a third of the screen empty).
  std::string sentence = "the cat chased a small dog home";    // tokens: whitespace words, or
                                                               // one per CJK character
  std::string sentence_b = "a small dog chased the cat home";  // second ordering (side by side)
  int token_count = 32;  // tokens "t0".."tN-1" when source = count, [1, 1024]
  int grid_rows = 8;     // patch grid rows when source = grid, [1, 32]
  int grid_cols = 8;     // patch grid columns, [1, 32]; rows x cols <= 1024
  AttentionCompare compare = AttentionCompare::off;
  AttentionEncoding compare_encoding =
      AttentionEncoding::sinusoidal;  // right side when comparing encodings
  AttentionDemo demo = AttentionDemo::none;
  double shift = 16.0;           // k added to every position in the shift demo, [0, 1e6]
  int extrapolate_tokens = 128;  // tokens in the extrapolation demo (> table length), [2, 1024]
  int head = 0;                  // head shown, [0, heads - 1]
  bool show_scores = false;      // heatmap of logits instead of softmax weights
  int query_row = 3;             // query patch in grid mode, [0, grid_rows - 1]
  int query_col = 3;             // [0, grid_cols - 1]
  bool show_terrain = true;      // draw the terrain next to the grid attention
  int decay_max = 512;           // x-range of the RoPE decay plot in tokens, [8, 1e6]
  ColorScaleKind color_scale = ColorScaleKind::linear;  // heatmap colours: linear, log or rank
  bool shared_scale = false;  // side by side: one colour range over both maps
  // Trained source (issue 27): a shipped byte-level language model's real attention on bytes.
  AttentionWeights weights = AttentionWeights::random;  // seeded random weights or trained
  lm::LengthModelId model = lm::LengthModelId::rope;    // trained: which shipped model
  RopeScaling scaling = RopeScaling::yarn;  // trained RoPE: the scaling shown beside the
                                            // unscaled map (none = the unscaled map alone)
  double factor = 4.0;                      // its factor s, [1, 1024]
  int layer = 0;            // trained: block shown, [0, 31] (clamped to the model's last)
  bool mean_heads = false;  // trained: the mean over the heads instead of `head`
  int passage = 0;          // trained: held-out passage (count source and demos), [0, 999]

  bool operator==(const AttentionLabSettings&) const = default;

  static constexpr ParamRange token_count_range{1, kAttentionMaxTokens};
  static constexpr ParamRange grid_side_range{1, 32};
  static constexpr ParamRange shift_range{0, 1e6};
  static constexpr ParamRange extrapolate_tokens_range{2, kAttentionMaxTokens};
  static constexpr ParamRange head_range{0, 63};
  static constexpr ParamRange query_range{0, 31};
  static constexpr ParamRange decay_max_range{8, 1e6};
  static constexpr ParamRange layer_range{0, 31};
  static constexpr ParamRange passage_range{0, 999};
};

inline constexpr const char* kAttentionLabName = "attention";

const std::vector<std::string>& attention_source_names();   // sentence, count, grid
const std::vector<std::string>& attention_compare_names();  // off, encodings, orderings
const std::vector<std::string>&
attention_demo_names();  // none, permutation, shift, extrapolation, decay, slopes, buckets

// Throws InputError naming the first bad field (including cross-field limits).
void attention_lab_validate(const AttentionLabSettings& s);
// The tokens the lab shows (first side) and, for orderings, the second sentence's tokens.
AttentionInput attention_lab_input(const AttentionLabSettings& s);
AttentionInput attention_lab_input_b(const AttentionLabSettings& s);

// Samples of the RoPE decay demo's curves (the panel and the CLI draw the same points).
inline constexpr int kAttentionDecayPoints = 512;
// Tokens the T5 buckets demo's button opens at least (a count source): past num_buckets / 4
// of the default 32 buckets the buckets are log-spaced, and 48 tokens reach several of them.
inline constexpr int kAttentionBucketsDemoTokens = 48;
// Held-out passages averaged by the trained RoPE decay demo.
inline constexpr int kAttentionTrainedDecayWindows = 8;
// Bytes the extrapolation demo's button opens the trained source with: 4L of the shipped
// models (L = 128), so three quarters of the passage lies past L.
inline constexpr int kAttentionTrainedExtrapolateTokens = 512;

// Everything the lab shows for one set of settings: the model and its result, the
// comparison or demo the settings ask for, with captions for the two sides. The panel
// draws it and `poslab-cli attention` prints it; neither computes anything else.
struct AttentionLabResult {
  AttentionLabSettings lab;           // the settings it was computed for
  AttentionModel model;               // left side: the lab's tokens and encoding
  AttentionResult result;             // per head (only `only_head` filled when asked)
  bool has_pair = false;              // comparison: encodings, orderings, permutation or shift
  AttentionComparison pair;           // valid when has_pair
  std::string caption_a, caption_b;   // what the two sides show
  bool has_extrapolation = false;     // extrapolation demo
  ExtrapolationDemo extrapolation;    // valid when has_extrapolation
  bool has_decay = false;             // RoPE decay demo
  RopeDecay decay;                    // kAttentionDecayPoints samples over [0, decay_max]
  std::vector<double> slopes;         // ALiBi demo: one slope per head
  RowMatrix demo_matrix;              // ALiBi demo: bias of the shown head; T5 demo: bucket map
  std::vector<RowMatrix> demo_heads;  // ALiBi demo: every head's bias, H x (T, T), T >= 32
  std::vector<T5BucketRange> bucket_ranges;  // T5 demo: key - query range of every bucket
  int bucket_horizon = 0;    // T5 demo: ranges cover |key - query| up to this distance
  bool has_trained = false;  // weights = trained: only `trained` is filled (model, result and
                             // the random-weight demos stay empty)
  AttentionTrained trained;
};

// Options of one computation that are not part of a preset.
struct AttentionLabOptions {
  int only_head = -1;        // compute only this head (the panel's view), -1 = every head
  std::vector<int> order{};  // permutation demo: token t of B = token order[t]; empty = reversal
  const AttentionTrainedData* trained = nullptr;  // weights = trained: the model io loaded
};

// Validates the settings (InputError), then computes what they ask for. `cancel` may stop
// the work early (then the result is incomplete; the caller drops it).
AttentionLabResult attention_lab_compute(const AttentionLabSettings& s,
                                         const std::atomic<bool>* cancel = nullptr,
                                         const AttentionLabOptions& options = {});

// The trained source's computation (attention_trained.cpp): the text the settings name
// (the sentence's bytes; held-out bytes for source=count, the extrapolation and decay demos)
// through the model. Called by attention_lab_compute.
AttentionTrained attention_trained_compute(const AttentionLabSettings& s,
                                           const AttentionTrainedData& d,
                                           const std::atomic<bool>* cancel = nullptr);

// Every preset field of the lab, in the order presets write them (RoPE base and layout
// from the shared RoPE table; the old key rope_base still loads).
const PresetTable<AttentionLabSettings>& attention_preset_fields();
std::string attention_to_preset(const AttentionLabSettings& s);
// Starts from `base` (usually the defaults) and overrides what the preset names.
AttentionLabSettings attention_from_preset(const std::string& text,
                                           const AttentionLabSettings& base = {});

}  // namespace poslab
