// The world model's training run behind `poslab-cli wm train` (see wm_train_run.hpp).
#include "io/training/wm_train_run.hpp"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/common/errors.hpp"
#include "core/nn/parallel.hpp"

namespace poslab::io {

std::string wm_train_csv_header() {
  return "step,loss,state,power,turn,shoot,rel,lr,grad_norm,window_steps,tokens_per_s,seconds,"
         "val_loss,val_state,val_power,val_turn,val_shoot,val_rel";
}

std::string wm_train_csv_row(const wm::WmTrainRow& r, double seconds_offset) {
  char buf[512];
  const auto& p = r.parts;
  const auto& v = r.val_parts;
  std::snprintf(buf, sizeof buf, "%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.1f,%.2f",
                static_cast<long long>(r.step), r.loss, p.state, p.power, p.turn, p.shoot, p.rel,
                r.lr, r.grad_norm, r.steps_in_window, r.tokens_per_s, r.seconds + seconds_offset);
  std::string s = buf;
  if (r.val_loss >= 0) {
    std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", r.val_loss, v.state, v.power,
                  v.turn, v.shoot, v.rel);
    s += buf;
  } else {
    s += ",,,,,,";
  }
  return s;
}

WmTrainRun::WmTrainRun(WmTrainRequest request)
    : request_(std::move(request)),
      files_(request_.output, request_.log, "--output: give the checkpoint file to write") {
  WmTrainRequest& a = request_;
  a.log = files_.log();
  nn::threads_validate(a.threads, "--threads");
  std::vector<float> params;
  TensorMetadata resumed;
  if (a.resume && std::filesystem::exists(a.output)) {
    auto ck = wm_checkpoint_load(a.output);
    if (!ck.optim)
      throw InputError(
          a.output +
          ": holds no optimiser state (an exported model); resume from a training checkpoint");
    config_ = ck.config;
    params = std::move(ck.params);
    optim_ = std::move(*ck.optim);
    resumed = std::move(ck.metadata);
    // The recorded settings win: the same batches follow as without the interruption. Each
    // is checked for type and range before it is converted (io/checkpoint).
    const WmRecordedData d = wm_recorded_data(resumed, a.output);
    if (a.data.empty()) a.data = d.files;
    a.seed = d.seed.value_or(a.seed);
    a.data_params.seed = a.seed;
    a.data_params.val_fraction = d.val_fraction.value_or(a.data_params.val_fraction);
    wm_recorded_training(resumed, a.output, a.data_params, a.adam);
  } else {
    if (!a.resume && std::filesystem::exists(a.output))
      throw InputError(a.output + ": exists; pass --resume to continue it or remove it first");
    config_ = wm::wm_preset(a.preset, wm::wm_position_from_name(a.position));
    if (a.state_head != "plain" && a.state_head != "scaled" && a.state_head != "cv")
      throw InputError("--state-head '" + a.state_head + "': use plain, scaled or cv");
    a.data_params.seed = a.seed;
  }
  nn::adamw_validate(a.adam);
  wm::wm_data_validate(a.data_params, config_);
  wm::wm_train_validate(a.train);
  if (a.steps < 1) throw InputError("--steps = " + std::to_string(a.steps) + ": must be >= 1");
  a.train.steps = a.steps;
  for (const auto& p : a.data)
    if (!std::filesystem::exists(p))
      throw InputError(p + ": dataset file not found (make one with `poslab-cli collect`)");
  std::vector<EpisodeSource> sources;
  episodes_ = wm_load_episodes(a.data, &sources);
  wm::wm_check_episodes(episodes_);
  split_ = wm::wm_split_episodes(static_cast<int>(episodes_.size()), a.data_params.val_fraction,
                                 a.data_params.seed);
  if (split_.train.empty())
    throw InputError("the datasets hold too few episodes to train on (collect more)");

  if (params.empty() && a.state_head != "plain") {  // a new run: the scale of its train split
    config_.state_base = a.state_head == "cv" ? wm::WmStateBase::cv : wm::WmStateBase::last;
    config_.state_scale = wm::wm_state_scale(episodes_, split_.train, config_.state_base);
    config_.state_loss = wm::wm_state_loss_from_name(a.state_loss);
  }
  model_.emplace(config_);
  model_->set_threads(a.threads);
  if (params.empty()) {
    model_->init(a.seed);
    optim_ = nn::adamw_init(model_->params.size());
  } else {
    model_->params = std::move(params);
  }
  if (optim_.step >= a.steps)
    throw InputError(a.output + " is at step " + std::to_string(optim_.step) +
                     ": --steps must be larger to continue");
  first_step_ = optim_.step;

  // Ordered as written (the keys' order is part of the checkpoint's bytes).
  nlohmann::ordered_json data;
  data["files"] = nlohmann::ordered_json::array();
  for (const auto& s : sources)
    data["files"].push_back({{"path", s.path}, {"episodes", s.episodes}});
  data["seed"] = a.data_params.seed;
  data["val_fraction"] = a.data_params.val_fraction;
  data["train_episodes"] = split_.train.size();
  data["val_episodes"] = split_.val.size();
  nlohmann::ordered_json train;
  train["batch"] = a.data_params.batch;
  train["short_steps"] = wm::wm_short_steps(a.data_params, config_);
  train["long_steps"] = wm::wm_long_steps(a.data_params, config_);
  train["long_every"] = a.data_params.long_every;
  record_adamw(train, a.adam);
  train["swa_start"] = a.adam.swa_start;
  train["swa_every"] = a.adam.swa_every;
  train["init_seed"] = a.seed;
  meta_["data"] = data.dump();
  meta_["training"] = train.dump();
  meta_["command"] = train_command(resumed, a.command);
  meta_["seed"] = std::to_string(a.seed);
  seconds_offset_ = files_.begin_curve(wm_train_csv_header(), a.resume, optim_.step, 11);
}

wm::WmTrainRow WmTrainRun::train(const std::function<bool()>& stop_requested,
                                 const std::function<void(const wm::WmTrainRow&)>& on_row) {
  wm::WmTrainHooks hooks;
  hooks.on_row = [&](const wm::WmTrainRow& r) {
    files_.add_row(wm_train_csv_row(r, seconds_offset_));
    if (on_row) on_row(r);
  };
  hooks.on_checkpoint = [&](int64_t step) {
    files_.save(step, [&] {
      wm_checkpoint_save(request_.output, config_, model_->params, step, &optim_, meta_);
    });
  };
  hooks.stop_requested = stop_requested;
  return wm::wm_train(*model_, optim_, request_.adam, request_.data_params, request_.train,
                      episodes_, split_, hooks);
}

}  // namespace poslab::io
