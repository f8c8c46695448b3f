// Training from the dream lab (dream_lab_train.hpp) on top of core/wm/train.
#include "core/wm/dream_lab_train.hpp"

#include "core/bnb/bnb_rng.hpp"
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

DreamTrainProgress dream_lab_train(const DreamTrainSpec& spec,
                                   std::vector<bnb::EpisodeRecord> episodes,
                                   const DreamTrainHooks& hooks) {
  dream_train_validate(spec);
  if (episodes.empty()) {
    for (int e = 0; e < spec.episodes; ++e) {
      if (hooks.stop_requested && hooks.stop_requested()) return {};
      bnb::EpisodeSpec es;
      es.seed = bnb::derive_seed(spec.seed, 1000 + static_cast<uint64_t>(e));
      es.policy = bnb::PolicyKind::noisy_expert;
      episodes.push_back(bnb::run_episode(es));
    }
  }
  wm_check_episodes(episodes);
  WmConfig config = wm_preset(spec.preset, spec.position);
  WmDataParams data;
  data.batch = spec.batch;
  data.seed = spec.seed;
  wm_data_validate(data, config);
  const EpisodeSplit split =
      wm_split_episodes(static_cast<int>(episodes.size()), data.val_fraction, spec.seed);
  // The cv state head with the loss in σ units (docs/world-model.md sections 5, 6 and 12),
  // as `poslab-cli wm train --state-head cv` and the shipped models.
  config.state_base = WmStateBase::cv;
  config.state_scale = wm_state_scale(episodes, split.train, config.state_base);
  config.state_loss = WmStateLoss::sigma;
  WorldModel model(config);
  model.init(spec.seed);
  model.set_threads(spec.threads);
  nn::AdamWState opt = nn::adamw_init(model.params.size());
  nn::AdamWParams adam;
  adam.lr = spec.lr;
  WmTrainParams tp;
  tp.steps = spec.steps;
  tp.log_every = spec.log_every;
  tp.val_every = spec.val_every;
  tp.checkpoint_every = spec.checkpoint_every;
  tp.val_windows = 16;
  wm_train_validate(tp);

  DreamTrainProgress progress;
  progress.total = spec.steps;
  progress.train_episodes = static_cast<int>(split.train.size());
  progress.val_episodes = static_cast<int>(split.val.size());
  WmTrainHooks h;
  h.on_row = [&](const WmTrainRow& r) {
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
    if (hooks.on_progress) hooks.on_progress(progress);
  };
  h.on_checkpoint = [&](int64_t) {
    if (hooks.on_checkpoint) hooks.on_checkpoint(config, model.params, opt);
  };
  h.stop_requested = hooks.stop_requested;
  wm_train(model, opt, adam, data, tp, episodes, split, h);
  return progress;
}

}  // namespace poslab::wm
