// The world model behind the dream lab's DreamModel interface (dream_lab_model.hpp).
// Until the KV-cache decoder is wired in, every step recomputes the window of the last
// C steps with the full forward pass: exact for RoPE (scores depend only on index
// differences) and for the absolute "recompute" mode (indices 0 .. 2C-1 in the window).
#include "core/wm/dream_lab_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>

#include "core/common/errors.hpp"
#include "core/wm/eval.hpp"

namespace poslab::wm {

std::string dream_model_file(DreamVariant w) {
  return w == DreamVariant::rope ? "wm_tiny_rope.safetensors" : "wm_tiny_absolute.safetensors";
}

std::string dream_model_path(const std::string& model, DreamVariant w,
                             const std::string& models_dir) {
  if (!model.empty()) return model;
  return (std::filesystem::path(models_dir) / dream_model_file(w)).string();
}

bnb::JointAction dream_sample_actions(std::span<const float> logits, double temperature,
                                      SeededStream& rng) {
  if (logits.size() != bnb::kSlots * kActionLogits)
    throw InputError("dream_sample_actions: logits (8, 12) expected");
  bnb::JointAction out{};
  for (int k = 0; k < bnb::kSlots; ++k) {
    uint8_t pick[bnb::kActionHeads];
    int first = 0;
    for (int h = 0; h < bnb::kActionHeads; ++h) {
      const int n = bnb::kActionSizes[h];
      const float* z = logits.data() + k * kActionLogits + first;
      int best = static_cast<int>(std::max_element(z, z + n) - z);
      if (temperature > 0) {  // softmax at temperature T, inverse CDF with one uniform
        double w[8], sum = 0;
        for (int i = 0; i < n; ++i) sum += w[i] = std::exp((z[i] - z[best]) / temperature);
        double u = rng.uniform() * sum;
        best = n - 1;
        for (int i = 0; i < n; ++i)
          if ((u -= w[i]) < 0) {
            best = i;
            break;
          }
      }
      pick[h] = static_cast<uint8_t>(best);
      first += n;
    }
    out[k] = {pick[0], pick[1], pick[2]};
  }
  return out;
}

namespace {

// One step of history: S_t and A_t (A_t unknown yet for the newest step).
struct HistoryStep {
  FrameTokens state{};
  std::array<uint8_t, bnb::kSlots * 3> action{};
};

class WindowDreamModel final : public DreamModel {
 public:
  WindowDreamModel(const WmConfig& config, std::vector<float> params, DreamVariant window)
      : model_(config), window_(window), params_(std::move(params)) {
    if (params_.size() != model_.params.size())
      throw InputError("dream model: " + std::to_string(params_.size()) +
                       " parameters given, the config needs " +
                       std::to_string(model_.params.size()));
    model_.params = params_;
    model_.set_threads(1);  // the dream runs on one worker; the UI keeps the other core
    const bool rope = config.position == WmPosition::rope;
    if (rope != (window == DreamVariant::rope))
      throw InputError(std::string("dream model: a ") + wm_position_name(config.position) +
                       " model cannot dream with the " +
                       dream_variant_names()[static_cast<int>(window)] + " window");
  }
  int context() const override { return model_.config().context; }
  DreamVariant variant() const override { return window_; }
  std::string describe() const override {
    const WmConfig& c = model_.config();
    std::string s = std::string(wm_position_name(c.position)) + ", E " + std::to_string(c.embed) +
                    ", " + std::to_string(c.layers) + " blocks, " + std::to_string(c.heads) +
                    " heads, context " + std::to_string(c.context) + " steps";
    if (window_ == DreamVariant::reset)
      s += "; approximate reset needs the KV-cache decoder, this build recomputes the window";
    return s;
  }
  std::vector<StripToken> strip(int steps) const override {
    // What is computed: the reset shortcut is not available without the cached decoder.
    const DreamVariant w = window_ == DreamVariant::reset ? DreamVariant::recompute : window_;
    return dream_token_strip(w, context(), steps);
  }

  void begin(std::span<const float> tokens, std::span<const uint8_t> actions,
             uint64_t sample_seed) override {
    const size_t steps = tokens.size() / kFrameValues;
    if (steps == 0 || tokens.size() != steps * kFrameValues ||
        actions.size() != (steps - 1) * bnb::kSlots * 3)
      throw InputError("dream model: the prompt needs T + 1 states and T actions");
    history_.clear();
    for (size_t t = 0; t < steps; ++t) {
      HistoryStep h;
      std::copy_n(tokens.begin() + t * kFrameValues, kFrameValues, h.state.begin());
      if (t + 1 < steps)
        std::copy_n(actions.begin() + t * bnb::kSlots * 3, bnb::kSlots * 3, h.action.begin());
      push(h);
    }
    rng_ = SeededStream(sample_seed, "wm-dream-action", steps - 1);
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
          dream_sample_actions({l, bnb::kSlots * kActionLogits}, choice.temperature, rng_);
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
  DreamVariant window_;
  std::vector<float> params_;
  std::deque<HistoryStep> history_;            // the last <= C steps, oldest first
  SeededStream rng_{0, "wm-dream-action", 0};  // open loop sampling
};

}  // namespace

std::unique_ptr<DreamModel> make_dream_model(const WmConfig& config, std::vector<float> params,
                                             DreamVariant window) {
  wm_validate(config);
  return std::make_unique<WindowDreamModel>(config, std::move(params), window);
}

}  // namespace poslab::wm
