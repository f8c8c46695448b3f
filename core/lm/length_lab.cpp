// The length lab's preset codec and its one computation: every number comes from core/lm's
// evaluation functions (lm_eval_positions, lm_eval_text, lm_attention) run on the models io
// loaded; this file only chooses which models, scalings and bytes.
#include "core/lm/length_lab.hpp"

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab::lm {

const std::vector<std::string>& length_model_names() {
  static const std::vector<std::string> n{"none",    "sinusoidal", "sinusoidal_scaled",
                                          "learned", "rope",       "alibi",
                                          "t5",      "rope_ft_pi", "rope_ft_yarn"};
  return n;
}
const char* length_model_name(LengthModelId id) {
  return length_model_names()[static_cast<size_t>(id)].c_str();
}
const std::vector<std::string>& length_text_source_names() {
  static const std::vector<std::string> n{"passage", "own"};
  return n;
}

void length_lab_validate(const LengthLabSettings& s) {
  require_in_range("factor", s.factor, LmScaling::factor_range);
  require_in_range("span", s.span, LengthLabSettings::span_range);
  require_in_range("windows", s.windows, LengthLabSettings::windows_range);
  require_in_range("passage", s.passage, LengthLabSettings::passage_range);
  require_in_range("topk", s.topk, LengthLabSettings::topk_range);
  require_in_range("layer", s.layer, LengthLabSettings::layer_range);
  require_in_range("head", s.head, LengthLabSettings::head_range);
  require_in_range("heads_bytes", s.heads_bytes, LengthLabSettings::heads_bytes_range);
  require_in_range("train", s.train, LengthLabSettings::train_range);
  if (s.text.size() > LengthLabSettings::max_text_bytes)
    throw InputError("length lab: text of " + std::to_string(s.text.size()) +
                     " bytes is longer than " + std::to_string(LengthLabSettings::max_text_bytes) +
                     "; shorten it");
}

bool length_model_shown(const LengthLabSettings& s, LengthModelId id) {
  switch (id) {
    case LengthModelId::none:
      return s.show_none;
    case LengthModelId::sinusoidal:
      return s.show_sinusoidal;
    case LengthModelId::sinusoidal_scaled:
      return s.show_sinusoidal_scaled;
    case LengthModelId::learned:
      return s.show_learned;
    case LengthModelId::rope:
      return s.show_rope;
    case LengthModelId::alibi:
      return s.show_alibi;
    case LengthModelId::t5:
      return s.show_t5;
    case LengthModelId::rope_ft_pi:
    case LengthModelId::rope_ft_yarn:
      return s.show_tuned;
  }
  return false;
}

const LengthLabModel* LengthLabData::find(LengthModelId id) const {
  for (const LengthLabModel& m : models)
    if (m.id == id && m.own.empty()) return &m;
  return nullptr;
}

void LengthLabData::put_own(LengthLabModel m) {
  std::erase_if(models, [&](const LengthLabModel& k) { return k.own == m.own; });
  const auto at = std::find_if(models.begin(), models.end(), [&](const LengthLabModel& k) {
    return !k.own.empty() && k.own > m.own;
  });
  models.insert(at, std::move(m));
}

LengthModelId length_model_of(LmPosition p) {
  switch (p) {
    case LmPosition::none:
      return LengthModelId::none;
    case LmPosition::sinusoidal:
      return LengthModelId::sinusoidal;
    case LmPosition::learned:
      return LengthModelId::learned;
    case LmPosition::rope:
      return LengthModelId::rope;
    case LmPosition::alibi:
      return LengthModelId::alibi;
    case LmPosition::t5:
      return LengthModelId::t5;
    case LmPosition::sinusoidal_scaled:
      return LengthModelId::sinusoidal_scaled;
  }
  return LengthModelId::rope;
}

std::vector<uint8_t> length_passage(const std::vector<uint8_t>& valid, int i, int bytes) {
  const int64_t n = static_cast<int64_t>(valid.size());
  if (bytes < 2 || n < bytes) return {};
  const int64_t start = (static_cast<int64_t>(i) * bytes) % (n - bytes + 1);
  return {valid.begin() + start, valid.begin() + start + bytes};
}

namespace {

bool length_cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load();
}

LmModel length_model(const LengthLabModel& m) {
  LmModel model(m.config);
  model.params = m.params;
  return model;
}

// The scaling the text and heads views run a model with: a tuned model with its own, the
// RoPE model with the lab's when asked, others none.
LmScaling length_view_scaling(const LengthLabSettings& s, const LengthLabModel& m, bool scaled) {
  if (m.tuned.scaling != RopeScaling::none) return m.tuned;
  if (m.config.position == LmPosition::rope && scaled) return {s.scaling, s.factor};
  return {};
}

}  // namespace

LmCost length_curve_cost(const LengthLabSettings& s, const LmConfig& c) {
  return lm_eval_positions_cost(c, int64_t{s.span} * c.context, s.windows);
}

LmCost length_views_cost(const LengthLabSettings& s, const LmConfig& c, int64_t n) {
  const LmCost text = lm_eval_text_cost(c, n);
  const LmCost heads = lm_attention_cost(c, std::min<int64_t>(n, s.heads_bytes), 1);
  // The text view's forward and two heads views run one after the other.
  return {std::max(text.bytes, heads.bytes), text.macs + 2 * heads.macs};
}

namespace {

std::string length_model_label(const LengthLabModel& m) {
  return m.own.empty() ? std::string(length_model_name(m.id)) : "yours " + m.own;
}

// "" when the curve of m at settings s can run within the budget on `valid_bytes` of
// held-out text, else the line saying what to change.
std::string length_curve_refusal(const LengthLabSettings& s, const LengthLabModel& m,
                                 int64_t valid_bytes, const LmBudget& budget) {
  const int64_t T = int64_t{s.span} * m.config.context;
  const std::string what =
      "the curve of " + length_model_label(m) + " (L = " + std::to_string(m.config.context) + ")";
  if (valid_bytes < T + 1)
    return what + " needs " + std::to_string(T + 1) + " bytes of held-out text (span x L + 1) " +
           "and there are " + std::to_string(valid_bytes) + "; lower the span";
  const LmCost k = length_curve_cost(s, m.config);
  if (!k.fits(budget))
    return lm_budget_message(what, k, budget, "lower the span or the windows, or hide it");
  return "";
}

}  // namespace

std::string length_model_unusable(const LengthLabModel& m, int64_t valid_bytes,
                                  const LmBudget& budget) {
  LengthLabSettings one;
  one.span = 1;
  one.windows = 1;
  const std::string why = length_curve_refusal(one, m, valid_bytes, budget);
  return why.empty() ? why
                     : why.substr(0, why.find(';')) + " even at span 1 with one window; " +
                           "PosLab cannot measure it";
}

LengthLabRun::LengthLabRun(const LengthLabSettings& s, const LengthLabData& data,
                           const LmBudget& budget)
    : data_(&data) {
  length_lab_validate(s);
  r_.lab = s;
  const int64_t nv = static_cast<int64_t>(data.valid.size());
  // Every curve priced before any runs: one that cannot run is listed, the rest are shown.
  auto plan = [&](const LengthLabModel* m, const LmScaling& sc) {
    const std::string why = length_curve_refusal(s, *m, nv, budget);
    if (why.empty())
      plan_.push_back({m, sc});
    else if (std::find(r_.refused.begin(), r_.refused.end(), why) == r_.refused.end())
      r_.refused.push_back(why);
  };
  // Loss against position: one curve per shown model (RoPE also with the scaling).
  for (int k = 0; k < kLengthModelCount; ++k) {
    const auto id = static_cast<LengthModelId>(k);
    if (!length_model_shown(s, id)) continue;
    const LengthLabModel* m = data.find(id);
    if (!m) {
      r_.missing.push_back(length_model_name(id));
      continue;
    }
    plan(m, m->tuned);
    if (id == LengthModelId::rope && s.scaling != RopeScaling::none) plan(m, {s.scaling, s.factor});
  }
  // The user's own models beside them, the RoPE ones also with the scaling.
  for (const LengthLabModel& m : data.models) {
    if (m.own.empty() || !s.show_own) continue;
    plan(&m, m.tuned);
    if (m.config.position == LmPosition::rope && s.scaling != RopeScaling::none)
      plan(&m, {s.scaling, s.factor});
  }
  // The text and heads views of the chosen model.
  if (const LengthLabModel* tm = data.find(s.model)) {
    const int64_t n = s.source == LengthTextSource::passage
                          ? int64_t{s.span} * tm->config.context + 1
                          : static_cast<int64_t>(s.text.size());
    const LmCost k = length_views_cost(s, tm->config, n);
    if (!k.fits(budget)) {
      views_refused_ = true;
      r_.refused.push_back(lm_budget_message(
          "the text view of " + length_model_label(*tm) + " on " + std::to_string(n) + " bytes", k,
          budget, "shorten the text or lower the span"));
    }
  }
}

struct LengthLabRun::Curve {
  LmModel model;
  std::unique_ptr<LmPositionsRun> run;
};

LengthLabRun::~LengthLabRun() = default;

int64_t LengthLabRun::steps() const {
  return static_cast<int64_t>(plan_.size()) * r_.lab.windows + kViewSteps;
}

int64_t LengthLabRun::steps_done() const {
  return windows_done_ + (curve_ ? curve_->run->windows_done() : 0) + view_;
}

void LengthLabRun::step() {
  if (done()) return;
  if (next_ < static_cast<int>(plan_.size()))
    curve_step();
  else
    view_step();
}

void LengthLabRun::curve_step() {
  const LengthLabSettings& s = r_.lab;
  const Planned& p = plan_[static_cast<size_t>(next_)];
  if (!curve_) {
    curve_ = std::make_unique<Curve>(Curve{length_model(*p.model), nullptr});
    curve_->run = std::make_unique<LmPositionsRun>(
        curve_->model, data_->valid, s.span * p.model->config.context, s.windows, p.scaling);
  }
  curve_->run->step();
  if (!curve_->run->done()) return;
  ++next_;
  windows_done_ += s.windows;
  const std::unique_ptr<Curve> done_curve = std::move(curve_);
  LengthCurve c;
  c.id = p.model->id;
  c.own = p.model->own;
  c.step = p.model->step;
  c.scaling = p.scaling;
  c.context = p.model->config.context;
  c.curve = done_curve->run->take();
  if (const std::string why = lm_logits_problem(done_curve->model); !why.empty()) {
    r_.refused.push_back("model " + length_model_label(*p.model) + ": " + why);
    return;  // a saturated model's 0 bits/byte is not a curve
  }
  r_.curves.push_back(std::move(c));
  r_.positions = r_.curves.front().curve.positions;
}

// The text, coloured by surprise, then the heads of the chosen model without and with the
// scaling: one forward each.
void LengthLabRun::view_step() {
  const LengthLabSettings& s = r_.lab;
  const LengthLabModel* tm = data_->find(s.model);
  const int view = view_++;
  if (view == 0) {
    if (!tm || views_refused_) {
      view_ = kViewSteps;
      if (r_.curves.empty() && !tm && r_.refused.empty())
        throw InputError("length lab: none of the shown models was found in the models folder; " +
                         std::string("they ship with PosLab: reinstall it, or set "
                                     "POSLAB_MODELS_DIR to a folder that has them"));
      return;
    }
    r_.context = tm->config.context;
    if (s.source == LengthTextSource::passage)
      r_.text = length_passage(data_->valid, s.passage, s.span * tm->config.context + 1);
    else
      r_.text.assign(s.text.begin(), s.text.end());
    if (r_.text.size() < 2) {
      view_ = kViewSteps;
      return;
    }
    view_model_ = std::make_unique<LmModel>(length_model(*tm));
    r_.text_scaling = length_view_scaling(s, *tm, s.scaled);
    r_.scores = lm_eval_text(*view_model_, r_.text, r_.text_scaling, s.topk);
    if (const std::string why = lm_logits_problem(*view_model_); !why.empty()) {
      r_.refused.push_back("model " + length_model_label(*tm) + ": " + why);
      r_.scores = {};
      view_ = kViewSteps;
      view_model_.reset();
      return;
    }
    r_.layer = std::min(s.layer, tm->config.layers - 1);
    r_.head = std::min(s.head, tm->config.heads - 1);
    const size_t n = std::min(r_.text.size(), static_cast<size_t>(s.heads_bytes));
    head_text_.assign(r_.text.begin(), r_.text.begin() + static_cast<long>(n));
    return;
  }
  if (view == 1) {
    r_.heads_plain = lm_attention(*view_model_, head_text_, tm->tuned, r_.layer, r_.head);
  } else {
    const LmScaling scaled = length_view_scaling(s, *tm, true);
    if (tm->config.position == LmPosition::rope && !(scaled == tm->tuned)) {
      r_.heads_scaled = lm_attention(*view_model_, head_text_, scaled, r_.layer, r_.head);
      r_.has_scaled_heads = true;
    }
  }
  if (view_ == kViewSteps) view_model_.reset();
}

LengthLabResult length_lab_compute(const LengthLabSettings& s, const LengthLabData& data,
                                   const std::atomic<bool>* cancel, const LmBudget& budget) {
  LengthLabRun run(s, data, budget);
  while (!run.done()) {
    if (length_cancelled(cancel)) break;
    run.step();
  }
  return run.take();
}

const PresetTable<LengthLabSettings>& length_preset_fields() {
  using S = LengthLabSettings;
  static const PresetTable<S> t{
      preset_field<S>(
          "none", [](auto& s) -> auto& { return s.show_none; }, "curves of the NoPE model"),
      preset_field<S>(
          "sin", [](auto& s) -> auto& { return s.show_sinusoidal; },
          "curves of the sinusoidal model"),
      preset_field<S>(
          "sin_scaled", [](auto& s) -> auto& { return s.show_sinusoidal_scaled; },
          "curves of the sinusoidal model with embeddings times sqrt(E), as Vaswani et al."),
      preset_field<S>(
          "learned", [](auto& s) -> auto& { return s.show_learned; },
          "curves of the learned-table model"),
      preset_field<S>(
          "rope", [](auto& s) -> auto& { return s.show_rope; },
          "curves of the RoPE model (unscaled and with --scaling)"),
      preset_field<S>(
          "alibi", [](auto& s) -> auto& { return s.show_alibi; }, "curves of the ALiBi model"),
      preset_field<S>(
          "t5", [](auto& s) -> auto& { return s.show_t5; }, "curves of the T5-bias model"),
      preset_field<S>(
          "tuned", [](auto& s) -> auto& { return s.show_tuned; },
          "curves of RoPE fine-tuned at 4L with PI and with YaRN"),
      preset_field<S>(
          "yours", [](auto& s) -> auto& { return s.show_own; },
          "curves of your own models (trained in the lab, in your data folder)"),
      preset_choice<S>(
          "scaling", [](auto& s) -> auto& { return s.scaling; }, rope_scaling_names(),
          "RoPE scaling applied to the RoPE model at inference", "--scaling"),
      preset_field<S>(
          "factor", [](auto& s) -> auto& { return s.factor; }, LmScaling::factor_range,
          "scaling factor s", "--factor"),
      preset_field<S>(
          "span", [](auto& s) -> auto& { return s.span; }, S::span_range,
          "positions shown, in multiples of the training length L", "--span"),
      preset_field<S>(
          "windows", [](auto& s) -> auto& { return s.windows; }, S::windows_range,
          "held-out windows averaged per curve", "--windows"),
      preset_choice<S>(
          "model", [](auto& s) -> auto& { return s.model; }, length_model_names(),
          "model of the text and heads views", "--model"),
      preset_field<S>(
          "scaled", [](auto& s) -> auto& { return s.scaled; },
          "text view: run the RoPE model with the scaling"),
      preset_choice<S>(
          "source", [](auto& s) -> auto& { return s.source; }, length_text_source_names(),
          "text view: a held-out passage or your own text"),
      preset_field<S>(
          "passage", [](auto& s) -> auto& { return s.passage; }, S::passage_range,
          "which held-out passage", "--passage"),
      preset_field<S>(
          "text", [](auto& s) -> auto& { return s.text; }, "your own text (source=own)"),
      preset_field<S>(
          "topk", [](auto& s) -> auto& { return s.topk; }, S::topk_range,
          "predictions listed per byte", "--topk"),
      preset_field<S>(
          "layer", [](auto& s) -> auto& { return s.layer; }, S::layer_range,
          "heads view: block (clamped to the model)", "--layer"),
      preset_field<S>(
          "head", [](auto& s) -> auto& { return s.head; }, S::head_range,
          "heads view: head (clamped to the model)", "--head"),
      preset_field<S>(
          "heads_bytes", [](auto& s) -> auto& { return s.heads_bytes; }, S::heads_bytes_range,
          "heads view: bytes of the text shown"),
      preset_field<S>(
          "log", [](auto& s) -> auto& { return s.log_y; }, "loss axis in log scale"),
      preset_field<S>(
          "mean", [](auto& s) -> auto& { return s.show_mean; }, "draw the averaged curves"),
      preset_field<S>(
          "one", [](auto& s) -> auto& { return s.show_one; }, "draw the curves of one window"),
      preset_field<S>(
          "smooth", [](auto& s) -> auto& { return s.smooth; }, S::smooth_range,
          "curves drawn as the trailing mean of this many positions (1 = raw)"),
      preset_field<S>(
          "train", [](auto& s) -> auto& { return s.train; }, S::train_range,
          "\"Train your own\": 0 hidden, 1 shown, 2 shown and a run started"),
  };
  return t;
}

std::string length_to_preset(const LengthLabSettings& s) {
  PresetWriter w(kLengthLabName);
  preset_write(w, length_preset_fields(), s, LengthLabSettings{});
  return w.str();
}

LengthLabSettings length_from_preset(const std::string& text, const LengthLabSettings& base) {
  LengthLabSettings s = base;
  PresetReader in(text, kLengthLabName);
  preset_read(in, length_preset_fields(), s);
  in.finish();
  length_lab_validate(s);
  return s;
}

}  // namespace poslab::lm
