// The length lab (issue 27): the shipped byte-level language models measured past their
// training length L. Its settings (which models, which RoPE scaling, how far, which text and
// what is looked at), the preset codec `length?...`, and length_lab_compute: the one function
// the panel and `poslab-cli length` call. It only calls core/lm's evaluation functions; the
// models' weights and the held-out text are loaded by io and handed in (LengthLabData).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/preset_fields.hpp"
#include "core/lm/lm.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_eval.hpp"

namespace poslab::lm {

// The shipped models, one per encoding (the sinusoidal one twice: as the other models add
// positions to unscaled token embeddings, and as Vaswani et al. do, embeddings times sqrt(E))
// plus RoPE fine-tuned at 4L with PI and with YaRN.
enum class LengthModelId {
  none,
  sinusoidal,
  sinusoidal_scaled,
  learned,
  rope,
  alibi,
  t5,
  rope_ft_pi,
  rope_ft_yarn
};
inline constexpr int kLengthModelCount = 9;
// "none", "sinusoidal", "sinusoidal_scaled", "learned", "rope", "alibi", "t5", "rope_ft_pi",
// "rope_ft_yarn": the id's
// name, which is also the shipped file's stem after "lm_" (io/length/length_lab_io.hpp).
const std::vector<std::string>& length_model_names();
const char* length_model_name(LengthModelId id);

enum class LengthTextSource { passage, own };
const std::vector<std::string>& length_text_source_names();  // passage, own

struct LengthLabSettings {
  bool show_none = true;               // curves of the NoPE model
  bool show_sinusoidal = true;         // curves of the sinusoidal model
  bool show_sinusoidal_scaled = true;  // curves of the sinusoidal model with sqrt(E) embeddings
  bool show_learned = true;            // curves of the learned-table model
  bool show_rope = true;               // curves of the RoPE model (unscaled, and with `scaling`)
  bool show_alibi = true;              // curves of the ALiBi model
  bool show_t5 = true;                 // curves of the T5-bias model
  bool show_tuned = true;              // curves of RoPE fine-tuned at 4L with PI and with YaRN
  bool show_own = true;                // curves of the user's own models ("Train your own")
  RopeScaling scaling = RopeScaling::yarn;    // scaling applied to the RoPE model at inference
  double factor = 4.0;                        // its factor s, [1, 1024]
  int span = 8;                               // positions shown = span x L, [1, 8]
  int windows = 4;                            // held-out windows averaged per curve, [1, 256]
  LengthModelId model = LengthModelId::rope;  // model of the text and heads views
  bool scaled = false;  // text view: the RoPE model runs with `scaling` (others ignore it)
  LengthTextSource source = LengthTextSource::passage;  // held-out passage or the user's text
  int passage = 0;  // which held-out passage (span x L + 1 bytes each), [0, 999]
  std::string text = "The quick brown fox jumps over the lazy dog.";  // own text, UTF-8
  int topk = 5;           // predictions listed when hovering a byte, [1, 16]
  int layer = 0;          // heads view: block, [0, 31] (clamped to the model's last)
  int head = 0;           // heads view: head, [0, 63] (clamped to the model's last)
  int heads_bytes = 256;  // heads view: first bytes of the text whose attention is shown,
                          // [8, 1024]
  bool log_y = false;     // loss axis in log scale
  bool show_mean = true;  // draw the averaged curves
  bool show_one = false;  // draw the curves of one window (the first)
  int smooth = 16;        // curves drawn as the trailing mean of this many positions, 1 = raw,
                          // [1, 128]
  int train = 0;          // "Train your own": 0 hidden, 1 shown, 2 shown and a run started
                          // (only from the user's own command line), [0, 2]

  bool operator==(const LengthLabSettings&) const = default;

  static constexpr ParamRange span_range{1, 8};
  static constexpr ParamRange windows_range{1, 256};
  static constexpr ParamRange smooth_range{1, 128};
  static constexpr ParamRange passage_range{0, 999};
  static constexpr ParamRange topk_range{1, 16};
  static constexpr ParamRange layer_range{0, 31};
  static constexpr ParamRange head_range{0, 63};
  static constexpr ParamRange heads_bytes_range{8, 1024};
  static constexpr ParamRange train_range{0, 2};
  // Own text longer than this is refused: the text view of the largest shipped shape at this
  // length fits the lab's budget (tests/lm/lm_budget_test.cpp).
  static constexpr size_t max_text_bytes = 4096;
};

inline constexpr const char* kLengthLabName = "length";

// Throws InputError naming the first bad field.
void length_lab_validate(const LengthLabSettings& s);
bool length_model_shown(const LengthLabSettings& s, LengthModelId id);
// The scaling a model runs with in the curves: the tuned ones with their own, others none.
// (The RoPE model gets a second curve with s.scaling when that is not none.)

// One shipped model as io loaded it: which one, its config, the scaling it was fine-tuned
// with (none for a base model) and its weights in lm_param_layout order.
// A model the user trained in the lab ("Train your own") has `own` set: its file's stem
// (core/lm/lm_own.hpp's lm_own_stem) and `id` is its encoding's.
struct LengthLabModel {
  LengthModelId id = LengthModelId::rope;
  LmConfig config;
  LmScaling tuned;
  std::vector<float> params;  // (P)
  std::string own = {};       // the user's own model: its file stem; "" for a shipped one
  int64_t step = 0;           // optimiser steps it was trained for
};

// What length_lab_compute reads: the models found (missing ones are simply absent) and the
// held-out validation text of their split.
struct LengthLabData {
  std::vector<LengthLabModel> models;    // shipped ones, then the user's own by file name
  std::vector<uint8_t> valid;            // bytes
  std::vector<std::string> own_skipped;  // own model files that could not be read, and why
  const LengthLabModel* find(LengthModelId id) const;  // a shipped model
  // Adds the user's own model `m`, replacing the one with the same `own` name.
  void put_own(LengthLabModel m);
};
// The shipped model id of an encoding (none .. t5, sinusoidal_scaled).
LengthModelId length_model_of(LmPosition p);

// One curve of the loss-against-position plot.
struct LengthCurve {
  LengthModelId id = LengthModelId::rope;  // the model (an own model: its encoding)
  std::string own;                         // the user's own model's name; "" when shipped
  int64_t step = 0;                        // an own model's training steps
  LmScaling scaling;                       // what it ran with
  int context = 0;                         // L of that model
  LmPositionCurve curve;
};

struct LengthLabResult {
  LengthLabSettings lab;             // the settings it was computed for
  int context = 0;                   // L of the text model (0 when it is missing)
  int positions = 0;                 // span x L of the curves
  std::vector<LengthCurve> curves;   // shown models in id order, then the user's own; RoPE
                                     // (shipped or own) unscaled then scaled
  std::vector<std::string> missing;  // names of shown models io did not find
  // Curves and views left out because they are over the budget or cannot run (an own model
  // whose span x L is longer than the held-out text): one line each saying what to change.
  std::vector<std::string> refused;
  // Text view: the bytes scored, by the `model` (absent: bits empty) with text_scaling.
  std::vector<uint8_t> text;
  LmScaling text_scaling;
  LmTextScores scores;
  // Heads view: the first heads_bytes bytes, the chosen layer and head, without and (RoPE
  // models, scaling not none) with the scaling. has_scaled_heads says whether the second ran.
  int layer = 0, head = 0;  // clamped to the model
  LmAttention heads_plain, heads_scaled;
  bool has_scaled_heads = false;
};

// The bytes of held-out passage i: span x L + 1 bytes of the validation text starting at
// i x (span x L + 1), wrapped round the text's end. Empty when the text is too short.
std::vector<uint8_t> length_passage(const std::vector<uint8_t>& valid, int i, int bytes);
// Validates, prices every curve and the views against `budget` (lm_budget.hpp) before any is
// run (one over it is left out with a line in `refused`), then evaluates. `cancel` may stop
// the work early (the result is incomplete; the caller drops it). Throws InputError when no
// shown model was found.
LengthLabResult length_lab_compute(const LengthLabSettings& s, const LengthLabData& data,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const LmBudget& budget = {});
// The price of one curve of model config c at these settings (span x L positions, windows).
LmCost length_curve_cost(const LengthLabSettings& s, const LmConfig& c);
// The price of the text and heads views of a text of n bytes on model config c.
LmCost length_views_cost(const LengthLabSettings& s, const LmConfig& c, int64_t n);
// Why model m cannot be measured by the lab at all (its curve at span 1 with one window is
// over the budget, or longer than the held-out text of `valid_bytes`), "" when it can.
std::string length_model_unusable(const LengthLabModel& m, int64_t valid_bytes,
                                  const LmBudget& budget = {});

// length_lab_compute in steps, for a caller that must not block for the whole computation
// (the app's jobs: the browser's frames run a few steps each): a curve (a model with one
// scaling over every window) takes one step per batch of 8 windows, and the last step is
// the text and the heads. Running every step gives length_lab_compute's result, number for
// number. The run holds `data` by reference: keep it alive. The constructor validates;
// step() throws what length_lab_compute throws.
class LengthLabRun {
 public:
  LengthLabRun(const LengthLabSettings& s, const LengthLabData& data, const LmBudget& budget = {});
  ~LengthLabRun();
  LengthLabRun(const LengthLabRun&) = delete;
  LengthLabRun& operator=(const LengthLabRun&) = delete;
  bool done() const { return next_ >= steps(); }
  int steps() const { return static_cast<int>(plan_.size()) + 1; }  // curves, then the text
  int steps_done() const { return next_; }                          // curves done (progress)
  void step();
  LengthLabResult take() { return std::move(r_); }

 private:
  struct Planned {
    const LengthLabModel* model = nullptr;
    LmScaling scaling;
  };
  const LengthLabData* data_;
  std::vector<Planned> plan_;
  LengthLabResult r_;
  int next_ = 0;
  bool views_refused_ = false;  // the text and heads views are over the budget
  struct Curve;                 // the curve being measured (its model and its run)
  std::unique_ptr<Curve> curve_;
};

const PresetTable<LengthLabSettings>& length_preset_fields();
std::string length_to_preset(const LengthLabSettings& s);
LengthLabSettings length_from_preset(const std::string& text, const LengthLabSettings& base = {});

}  // namespace poslab::lm
