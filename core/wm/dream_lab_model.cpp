// The world model behind the dream lab's DreamModel interface (dream_lab_model.hpp): the
// KV-cache decoder for live dreams, and the full forward pass over the window of the last
// C steps (what core/wm/eval's dreams compute) as the reference.
#include "core/wm/dream_lab_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>

#include "core/common/errors.hpp"
#include "core/wm/eval.hpp"
#include "core/wm/wm_decode.hpp"

namespace poslab::wm {

std::string describe_dream_model(const DreamModelInfo& i) {
  std::string s = i.position + ", E " + std::to_string(i.embed) + ", " + std::to_string(i.layers) +
                  " blocks, " + std::to_string(i.heads) + " heads, context " +
                  std::to_string(i.context) + " steps";
  if (!i.cache.empty()) s += ", KV cache (" + i.cache + ")";
  if (i.reset_recomputes)
    s += "; naive reuse and the UniZero patch need the KV-cache decoder, this build recomputes the "
         "window";
  return s;
}

std::string dream_model_file(DreamVariant w, DreamModelSize size) {
  return std::string("wm_") + (size == DreamModelSize::paper ? "paper" : "tiny") +
         (w == DreamVariant::rope ? "_rope" : "_absolute") + ".safetensors";
}

std::string dream_model_path(const std::string& model, DreamVariant w,
                             const std::string& models_dir, DreamModelSize size) {
  if (!model.empty()) return model;
  return (std::filesystem::path(models_dir) / dream_model_file(w, size)).string();
}

bnb::JointAction dream_sample_actions(std::span<const float> logits, double temperature,
                                      uint64_t seed, int t) {
  if (logits.size() != bnb::kSlots * kActionLogits)
    throw InputError("dream_sample_actions: logits (8, 12) expected");
  bnb::JointAction out{};
  for (int k = 0; k < bnb::kSlots; ++k) {
    uint8_t pick[bnb::kActionHeads];
    for (int h = 0; h < bnb::kActionHeads; ++h)
      pick[h] = static_cast<uint8_t>(
          wm_pick_action(logits.data() + k * kActionLogits + kActionHeadStart[h],
                         kActionHeadSize[h], temperature > 0, temperature, seed, t, k, h));
    out[k] = {pick[0], pick[1], pick[2]};
  }
  return out;
}

namespace {

// Steps (states) in a dream prompt of T + 1 states and T actions; throws InputError otherwise.
size_t prompt_steps(std::span<const float> tokens, std::span<const uint8_t> actions) {
  const size_t steps = tokens.size() / kFrameValues;
  if (steps == 0 || tokens.size() != steps * kFrameValues ||
      actions.size() != (steps - 1) * bnb::kSlots * 3)
    throw InputError("dream model: the prompt needs T + 1 states and T actions");
  return steps;
}

// One step of history: S_t and A_t (A_t unknown yet for the newest step).
struct HistoryStep {
  FrameTokens state{};
  std::array<uint8_t, bnb::kSlots * 3> action{};
};

class WindowDreamModel final : public DreamModel {
 public:
  // make_dream_model has checked that the window fits the model's positions.
  WindowDreamModel(const WmConfig& config, std::vector<float> params, WmOverflow window)
      : model_(config), window_(window), params_(std::move(params)) {
    if (params_.size() != model_.params.size())
      throw InputError("dream model: " + std::to_string(params_.size()) +
                       " parameters given, the config needs " +
                       std::to_string(model_.params.size()));
    model_.params = params_;
    model_.set_threads(1);  // the dream runs on one worker; the UI keeps the other core
  }
  int context() const override { return model_.config().context; }
  WmPosition position() const override { return model_.config().position; }
  WmOverflow window() const override { return window_; }
  DreamModelInfo info() const override {
    const WmConfig& c = model_.config();
    return {wm_position_name(c.position),
            c.embed,
            c.layers,
            c.heads,
            c.context,
            "",
            c.position == WmPosition::absolute && window_ != WmOverflow::recompute};
  }
  std::vector<StripToken> strip(int steps) const override {
    // What is computed: naive reuse and the patch need the cached decoder; this recomputes.
    const WmOverflow w = position() == WmPosition::rope ? WmOverflow::slide : WmOverflow::recompute;
    return dream_token_strip(position(), w, context(), steps);
  }

  void begin(std::span<const float> tokens, std::span<const uint8_t> actions,
             uint64_t sample_seed) override {
    const size_t steps = prompt_steps(tokens, actions);
    history_.clear();
    for (size_t t = 0; t < steps; ++t) {
      HistoryStep h;
      std::copy_n(tokens.begin() + t * kFrameValues, kFrameValues, h.state.begin());
      if (t + 1 < steps)
        std::copy_n(actions.begin() + t * bnb::kSlots * 3, bnb::kSlots * 3, h.action.begin());
      push(h);
    }
    seed_ = sample_seed;
    t_ = static_cast<int>(steps) - 1;  // steps the decoder would have taken: S_t is step t_
  }

  DreamStep step(const DreamChoice& choice) override {
    DreamStep out;
    const bool all_given =
        std::all_of(choice.use_given.begin(), choice.use_given.end(), [](bool b) { return b; });
    if (!all_given) {
      run();  // A_t is still a placeholder: S_t's logits cannot see it (causal)
      const int last = static_cast<int>(history_.size()) - 1;
      const float* l =
          model_.action_logits() + static_cast<size_t>(last) * bnb::kSlots * kActionLogits;
      out.actions =
          dream_sample_actions({l, bnb::kSlots * kActionLogits}, choice.temperature, seed_, t_);
    }
    for (int k = 0; k < bnb::kSlots; ++k)
      if (choice.use_given[k]) out.actions[k] = choice.given[k];
    HistoryStep& now = history_.back();
    for (int k = 0; k < bnb::kSlots; ++k) {
      now.action[k * 3 + 0] = out.actions[k].power;
      now.action[k * 3 + 1] = out.actions[k].turn;
      now.action[k * 3 + 2] = out.actions[k].shoot;
    }
    run();
    const int last = static_cast<int>(history_.size()) - 1;
    FrameTokens raw;
    std::copy_n(model_.state_pred() + static_cast<size_t>(last) * kFrameValues, kFrameValues,
                raw.begin());
    wm_clean_state(raw.data(), now.state.data(), out.next.data());
    HistoryStep h;
    h.state = out.next;
    push(h);
    ++t_;
    return out;
  }

  std::unique_ptr<DreamModel> clone() const override {
    return std::make_unique<WindowDreamModel>(model_.config(), params_, window_);
  }

 private:
  void push(const HistoryStep& h) {
    history_.push_back(h);
    while (static_cast<int>(history_.size()) > context()) history_.pop_front();
  }
  void run() {
    WmBatch b;
    b.batch = 1;
    b.steps = static_cast<int>(history_.size());
    b.tokens.reserve(static_cast<size_t>(b.steps) * kFrameValues);
    for (const HistoryStep& h : history_) {
      b.tokens.insert(b.tokens.end(), h.state.begin(), h.state.end());
      b.actions.insert(b.actions.end(), h.action.begin(), h.action.end());
    }
    b.valid.assign(b.steps, 1);
    model_.forward(b);
  }

  WorldModel model_;
  WmOverflow window_;
  std::vector<float> params_;
  std::deque<HistoryStep> history_;  // the last <= C steps, oldest first
  uint64_t seed_ = 0;                // open loop sampling stream
  int t_ = 0;                        // dream step of S_t (the sampler's draw index)
};

// The cached decoder in one of its window modes (the lab's variants: rope = slide,
// recompute = recompute, naive = slide with learned positions (the cached keys keep their
// stored rows), patch = UniZero's patch).
class CachedDreamModel final : public DreamModel {
 public:
  CachedDreamModel(std::shared_ptr<const WorldModel> model, WmOverflow overflow)
      : model_(std::move(model)), dreamer_(*model_, overflow) {}
  int context() const override { return model_->config().context; }
  WmPosition position() const override { return model_->config().position; }
  WmOverflow window() const override { return dreamer_.overflow(); }
  DreamModelInfo info() const override {
    const WmConfig& c = model_->config();
    return {wm_position_name(c.position),          c.embed, c.layers, c.heads, c.context,
            wm_overflow_name(dreamer_.overflow()), false};
  }

  void begin(std::span<const float> tokens, std::span<const uint8_t> actions,
             uint64_t sample_seed) override {
    const size_t steps = prompt_steps(tokens, actions);
    dreamer_.reset();
    for (size_t t = 0; t + 1 < steps; ++t)
      dreamer_.step_with_actions(tokens.data() + t * kFrameValues,
                                 actions.data() + t * bnb::kSlots * 3);
    std::copy_n(tokens.end() - kFrameValues, kFrameValues, now_.begin());
    seed_ = sample_seed;
    last_ = {};
  }

  DreamStep step(const DreamChoice& choice) override {
    WmActionChoice c;
    for (int k = 0; k < bnb::kSlots; ++k)
      if (choice.use_given[k])
        c.override_action[k] = std::array<uint8_t, 3>{choice.given[k].power, choice.given[k].turn,
                                                      choice.given[k].shoot};
    c.sample = choice.temperature > 0;
    c.temperature = std::max(choice.temperature, 1e-6);
    c.seed = seed_;
    last_ = dreamer_.step(now_.data(), c);
    DreamStep out;
    for (int k = 0; k < bnb::kSlots; ++k)
      out.actions[k] = {last_.actions[k * 3], last_.actions[k * 3 + 1], last_.actions[k * 3 + 2]};
    wm_clean_state(last_.state_pred.data(), now_.data(), out.next.data());
    now_ = out.next;
    return out;
  }

  std::vector<StripToken> strip(int steps) const override {
    std::vector<StripToken> out = dream_token_strip(position(), window(), context(), steps);
    for (const WmCachedIndex& i : dreamer_.cache_indices()) {  // the decoder's own record
      const size_t at = 2 * static_cast<size_t>(i.step) + i.slot;
      if (at >= out.size()) continue;
      out[at].cached = true;
      out[at].stored = i.stored_pos;
      out[at].used = i.used_pos;
    }
    return out;
  }

  DreamAttention attention() const override {
    DreamAttention a;
    const WmConfig& c = model_->config();
    const int H = c.heads, K = last_.cached_tokens, N = bnb::kSlots;
    if (K == 0 || last_.temporal_probs.empty()) return a;
    const int lt = static_cast<int>(last_.temporal_probs.size() / (2 * N * H * K));
    const int ls = static_cast<int>(last_.spatial_bias.size() / (N * N * H));
    a.layers = lt;
    a.heads = H;
    a.temporal.assign(lt, std::vector<std::vector<float>>(H * N));
    for (int l = 0; l < lt; ++l)
      for (int n = 0; n < N; ++n)
        for (int h = 0; h < H; ++h) {
          // (Lt, 2, N, H, K): the A token's row (slot 1)
          const float* row = &last_.temporal_probs[(((size_t(l) * 2 + 1) * N + n) * H + h) * K];
          a.temporal[l][h * N + n].assign(row, row + K);
        }
    a.spatial.assign(ls, std::vector<std::array<float, 64>>(H));
    a.spatial_bias.assign(ls, std::vector<std::array<float, 64>>(H));
    for (int l = 0; l < ls; ++l)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < N; ++j) {
            // (Ls, 2, H, N, N) for the A slot; bias (Ls, N, N, H)
            a.spatial[l][h][i * N + j] =
                last_.spatial_probs[(((size_t(l) * 2 + 1) * H + h) * N + i) * N + j];
            a.spatial_bias[l][h][i * N + j] =
                last_.spatial_bias[((size_t(l) * N + i) * N + j) * H + h];
          }
    return a;
  }

  std::unique_ptr<DreamModel> clone() const override {
    return std::make_unique<CachedDreamModel>(model_, dreamer_.overflow());
  }

 private:
  std::shared_ptr<const WorldModel> model_;  // parameters shared by clones (read only)
  WmDreamer dreamer_;                        // owns its cache and scratch
  FrameTokens now_{};                        // S_t, the state the next step starts from
  uint64_t seed_ = 0;
  WmStepResult last_;
};

void check_variant(const WmConfig& config, DreamVariant variant) {
  const bool rope = config.position == WmPosition::rope;
  if (rope != (variant == DreamVariant::rope))
    throw InputError(std::string("dream model: a ") + wm_position_name(config.position) +
                     " model cannot dream with the " +
                     dream_variant_names()[static_cast<int>(variant)] +
                     " variant (RoPE models: rope; absolute models: recompute, naive or patch)");
}

}  // namespace

std::unique_ptr<DreamModel> make_dream_model(const WmConfig& config, std::vector<float> params,
                                             DreamVariant variant, DreamCompute compute) {
  wm_validate(config);
  check_variant(config, variant);
  if (compute == DreamCompute::full_forward)
    return std::make_unique<WindowDreamModel>(config, std::move(params),
                                              dream_variant_overflow(variant));
  auto model = std::make_shared<WorldModel>(config);
  if (params.size() != model->params.size())
    throw InputError("dream model: " + std::to_string(params.size()) +
                     " parameters given, the config needs " + std::to_string(model->params.size()));
  model->params = std::move(params);
  return std::make_unique<CachedDreamModel>(std::move(model), dream_variant_overflow(variant));
}

std::unique_ptr<DreamModel> make_dream_model(const WorldModel& model, WmOverflow overflow) {
  // Borrowed, not owned: an aliasing pointer with no control block.
  return std::make_unique<CachedDreamModel>(
      std::shared_ptr<const WorldModel>(std::shared_ptr<const WorldModel>(), &model), overflow);
}

}  // namespace poslab::wm
