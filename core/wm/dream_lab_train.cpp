// Training from the dream lab (dream_lab_train.hpp) on top of core/wm/train.
#include "core/wm/dream_lab_train.hpp"

#include <cmath>
#include <utility>

#include "core/bnb/bnb_rng.hpp"
#include "core/common/charconv.hpp"
#include "core/wm/data.hpp"
#include "core/wm/train.hpp"

namespace poslab::wm {

void dream_train_validate(const DreamTrainSpec& s) {
  using S = DreamTrainSpec;
  wm_preset(s.preset, s.position);  // throws on an unknown preset
  require_in_range("episodes", s.episodes, S::episodes_range);
  require_in_range("steps", static_cast<double>(s.steps), S::steps_range);
  require_in_range("batch", s.batch, S::batch_range);
  require_in_range("lr", s.lr, S::lr_range);
  require_in_range("log_every", static_cast<double>(s.log_every), S::every_range);
  require_in_range("val_every", static_cast<double>(s.val_every), S::every_range);
  require_in_range("checkpoint_every", static_cast<double>(s.checkpoint_every), S::every_range);
  require_in_range("threads", s.threads, S::threads_range);
}

struct DreamTrainRun::Training {
  WmConfig config;
  WmDataParams data;
  EpisodeSplit split;
  WorldModel model;
  nn::AdamWState opt;
  nn::AdamWParams adam;
  WmTrainParams tp;
  std::unique_ptr<WmTrainer> trainer;
  explicit Training(const WmConfig& c) : config(c), model(c) {}
};

DreamTrainRun::DreamTrainRun(const DreamTrainSpec& spec, std::vector<bnb::EpisodeRecord> episodes,
                             DreamTrainHooks hooks)
    : spec_(spec), episodes_(std::move(episodes)), hooks_(std::move(hooks)) {
  dream_train_validate(spec_);
  collect_ = episodes_.empty();
  if (!collect_) begin_training();
}

DreamTrainRun::~DreamTrainRun() = default;

void DreamTrainRun::begin_training() {
  wm_check_episodes(episodes_);
  WmConfig config = wm_preset(spec_.preset, spec_.position);
  WmDataParams data;
  data.batch = spec_.batch;
  data.seed = spec_.seed;
  wm_data_validate(data, config);
  const EpisodeSplit split =
      wm_split_episodes(static_cast<int>(episodes_.size()), data.val_fraction, spec_.seed);
  // The cv state head with the loss in σ units (docs/world-model.md sections 5, 6 and 12),
  // as `poslab-cli wm train --state-head cv` and the shipped models.
  config.state_base = WmStateBase::cv;
  config.state_scale = wm_state_scale(episodes_, split.train, config.state_base);
  config.state_loss = WmStateLoss::sigma;
  auto t = std::make_unique<Training>(config);
  t->data = data;
  t->split = split;
  t->model.init(spec_.seed);
  t->model.set_threads(spec_.threads);
  t->opt = nn::adamw_init(t->model.params.size());
  t->adam.lr = spec_.lr;
  t->tp.steps = spec_.steps;
  t->tp.log_every = spec_.log_every;
  t->tp.val_every = spec_.val_every;
  t->tp.checkpoint_every = spec_.checkpoint_every;
  t->tp.val_windows = kDreamValWindows;
  t->tp.val_batch = kDreamValBatch;
  wm_train_validate(t->tp);

  progress_ = {};
  progress_.total = spec_.steps;
  progress_.train_episodes = static_cast<int>(split.train.size());
  progress_.val_episodes = static_cast<int>(split.val.size());
  WmTrainHooks h;
  h.on_row = [this](const WmTrainRow& r) {
    DreamTrainProgress& progress = progress_;
    // The loop's final row may repeat the last logged step (a stop): replace, not append.
    if (!progress.step.empty() && progress.step.back() == static_cast<double>(r.step)) {
      progress.step.pop_back();
      progress.loss.pop_back();
    }
    progress.step.push_back(static_cast<double>(r.step));
    progress.loss.push_back(r.loss);
    if (r.val_loss >= 0 &&
        (progress.val_step.empty() || progress.val_step.back() != static_cast<double>(r.step))) {
      progress.val_step.push_back(static_cast<double>(r.step));
      progress.val_loss.push_back(r.val_loss);
    }
    progress.tokens_per_s = r.tokens_per_s;
    progress.done = r.step;
    if (hooks_.on_progress) hooks_.on_progress(progress);
  };
  Training* tr = t.get();
  h.on_checkpoint = [this, tr](int64_t) {
    if (hooks_.on_checkpoint) hooks_.on_checkpoint(tr->config, tr->model.params, tr->opt);
  };
  h.stop_requested = hooks_.stop_requested;
  t->trainer = std::make_unique<WmTrainer>(t->model, t->opt, t->adam, t->data, t->tp, episodes_,
                                           t->split, std::move(h));
  training_ = std::move(t);
}

bool DreamTrainRun::step() {
  if (over_) return false;
  if (collect_) {
    if (hooks_.stop_requested && hooks_.stop_requested()) {
      over_ = true;
      return false;
    }
    bnb::EpisodeSpec es;
    es.seed = bnb::derive_seed(spec_.seed, 1000 + static_cast<uint64_t>(episodes_.size()));
    es.policy = bnb::PolicyKind::noisy_expert;
    episodes_.push_back(bnb::run_episode(es));
    if (static_cast<int>(episodes_.size()) < spec_.episodes) return true;
    collect_ = false;
    begin_training();
    return true;
  }
  over_ = !training_->trainer->step();
  return !over_;
}

namespace {
// Multiply-adds of one forward over B windows of T steps (legend of world_model.hpp); the
// causal temporal attention counts half its (2T)^2 scores.
double dream_forward_macs(const WmConfig& c, double B, double T) {
  const double E = c.embed, N = kShips, M = B * T * 2 * N, Ms = B * T * N, Mp = Ms * N;
  double macs = Ms * (kStateFeatures * E + 6 * E * E) + Ms * E * E;  // encoders
  for (int l = 0; l < c.layers; ++l) {
    macs += M * 12 * E * E;  // qkv, proj, MLP
    if (wm_is_temporal(l))
      macs += B * N * (2 * T) * (2 * T) * E;  // half of the scores, half of the sums
    else
      macs += B * T * 2 * N * N * 2 * E + Mp * (kRelDim + c.heads) * kRelBiasHidden;
  }
  return macs + Ms * E * (kActionLogits + kTokenDim + 2 * kRelDim * kRelRank);  // heads
}
}  // namespace

double DreamTrainCost::seconds() const {
  return collect_s + macs / kDreamTrainMacsPerSecond;
}

DreamTrainCost dream_train_cost(const DreamTrainSpec& s) {
  const WmConfig c = wm_preset(s.preset, s.position);
  WmDataParams data;
  data.batch = s.batch;
  const double shorts = wm_short_steps(data, c), longs = wm_long_steps(data, c);
  const double every = data.long_every;
  const double step = 3 * ((every - 1) / every * dream_forward_macs(c, s.batch, shorts) +
                           1 / every * dream_forward_macs(c, s.batch, longs));
  // every val_every steps and at the end
  const double validations = std::ceil(static_cast<double>(s.steps) / s.val_every);
  DreamTrainCost cost;
  cost.macs = static_cast<double>(s.steps) * step +
              validations * dream_forward_macs(c, kDreamValWindows, longs);
  cost.collect_s = s.episodes * kDreamEpisodeSeconds;
  return cost;
}

double dream_train_stage_macs(const DreamTrainSpec& s) {
  const WmConfig c = wm_preset(s.preset, s.position);
  WmDataParams data;
  data.batch = s.batch;
  // The heaviest stage: a temporal block's attention half, backward (twice its forward).
  const double T = wm_long_steps(data, c), B = s.batch, E = c.embed, N = kShips;
  return 2 * (B * T * 2 * N * 4 * E * E + B * N * (2 * T) * (2 * T) * E);
}

bool dream_train_fits_frames(const DreamTrainSpec& s) {
  DreamTrainSpec base;  // the defaults: tiny, batch 4
  base.position = s.position;
  return dream_train_stage_macs(s) <= 2 * dream_train_stage_macs(base);
}

namespace {
// 'text' for a POSIX shell.
std::string dream_train_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}
}  // namespace

std::string dream_train_command(const DreamTrainSpec& s, const std::string& output) {
  char lr[32];
  const auto r = chars::to_chars(lr, lr + sizeof lr, s.lr);
  return "poslab-cli wm train-lab --preset " + s.preset + " --position " +
         wm_position_name(s.position) + " --episodes " + std::to_string(s.episodes) + " --seed " +
         std::to_string(s.seed) + " --steps " + std::to_string(s.steps) + " --batch " +
         std::to_string(s.batch) + " --lr " + std::string(lr, r.ptr) + " --threads " +
         std::to_string(s.threads) + " -o " + dream_train_quote(output);
}

std::string dream_train_provenance(const DreamTrainSpec& s) {
  return "PosLab dream lab training, " + std::to_string(s.episodes) +
         " noisy-expert episodes, seed " + std::to_string(s.seed);
}

DreamTrainProgress dream_lab_train(const DreamTrainSpec& spec,
                                   std::vector<bnb::EpisodeRecord> episodes,
                                   const DreamTrainHooks& hooks) {
  DreamTrainRun run(spec, std::move(episodes), hooks);
  while (run.step()) {
  }
  return run.progress();
}

}  // namespace poslab::wm
