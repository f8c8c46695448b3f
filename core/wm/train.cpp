// The world model's training loop (see train.hpp): batch k+1 for step k+1, forward,
// backward, one AdamW step; log rows, validation and checkpoint hooks at their intervals.
#include "core/wm/train.hpp"

#include <chrono>
#include <string>

#include "core/common/errors.hpp"

namespace poslab::wm {

void wm_train_validate(const WmTrainParams& p) {
  require_in_range("steps", static_cast<double>(p.steps), WmTrainParams::steps_range);
  require_in_range("log_every", static_cast<double>(p.log_every), WmTrainParams::every_range);
  require_in_range("val_every", static_cast<double>(p.val_every), WmTrainParams::every_range);
  require_in_range("checkpoint_every", static_cast<double>(p.checkpoint_every),
                   WmTrainParams::every_range);
  require_in_range("val_windows", p.val_windows, WmTrainParams::val_windows_range);
  require_in_range("val_batch", p.val_batch, {1, 4096});
}

std::vector<uint8_t> wm_decay_mask(const ParamLayout& layout) {
  std::vector<uint8_t> mask(layout.total, 0);
  for (const auto& t : layout.tensors) {
    const bool weight = t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".weight") == 0;
    const bool norm = t.name.find("ln") != std::string::npos;
    if (weight && !norm && t.shape.size() == 2)
      std::fill_n(mask.begin() + static_cast<long>(t.offset), t.size, 1);
  }
  return mask;
}

WmLoss wm_evaluate_loss(WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                        const std::vector<WmWindow>& windows, int steps, int batch) {
  WmLoss sum;
  double state = 0, power = 0, turn = 0, shoot = 0, rel = 0;
  for (size_t i = 0; i < windows.size(); i += static_cast<size_t>(batch)) {
    const size_t end = std::min(windows.size(), i + static_cast<size_t>(batch));
    const std::vector<WmWindow> part(windows.begin() + static_cast<long>(i),
                                     windows.begin() + static_cast<long>(end));
    const WmLoss l = model.forward(wm_make_batch(episodes, part, steps));
    state += l.state * static_cast<double>(l.state_count);
    power += l.power * static_cast<double>(l.action_count);
    turn += l.turn * static_cast<double>(l.action_count);
    shoot += l.shoot * static_cast<double>(l.action_count);
    rel += l.rel * static_cast<double>(l.rel_count);
    sum.state_count += l.state_count;
    sum.action_count += l.action_count;
    sum.rel_count += l.rel_count;
  }
  if (sum.state_count > 0) sum.state = state / static_cast<double>(sum.state_count);
  if (sum.action_count > 0) {
    const double n = static_cast<double>(sum.action_count);
    sum.power = power / n;
    sum.turn = turn / n;
    sum.shoot = shoot / n;
  }
  if (sum.rel_count > 0) sum.rel = rel / static_cast<double>(sum.rel_count);
  sum.total = sum.state + kActionWeight * (sum.power + sum.turn + sum.shoot) + kRelWeight * sum.rel;
  return sum;
}

WmTrainRow wm_train(WorldModel& model, nn::AdamWState& opt, const nn::AdamWParams& adam,
                    const WmDataParams& data, const WmTrainParams& p,
                    const std::vector<bnb::EpisodeRecord>& episodes, const EpisodeSplit& split,
                    const WmTrainHooks& hooks) {
  wm_train_validate(p);
  nn::adamw_validate(adam);
  wm_data_validate(data, model.config());
  if (opt.m.size() != model.params.size())
    throw InputError("optimiser state has " + std::to_string(opt.m.size()) + " moments for " +
                     std::to_string(model.params.size()) + " parameters");
  const auto mask = wm_decay_mask(model.layout());
  const int val_steps = wm_long_steps(data, model.config());
  const auto val_windows = wm_val_windows(episodes, split.val, val_steps, p.val_windows);
  using clock = std::chrono::steady_clock;
  const auto t_start = clock::now();
  auto t_row = t_start;
  int64_t tokens_since_row = 0;
  WmLoss loss_sum;  // parts summed over the steps since the last row (weighted by counts)
  int64_t steps_since_row = 0;
  WmTrainRow row;
  while (opt.step < p.steps) {
    const int64_t k = opt.step;  // batch index of the step being taken
    const int T = wm_train_steps_of_batch(data, model.config(), k);
    const auto windows = wm_train_windows(episodes, split.train, data, model.config(), k);
    const WmBatch batch = wm_make_batch(episodes, windows, T);
    model.zero_grad();
    const WmLoss loss = model.forward(batch);
    model.backward();
    const auto info = nn::adamw_step(adam, model.params, model.grads, opt, mask);
    tokens_since_row += static_cast<int64_t>(batch.batch) * T * 2 * kShips;
    loss_sum.total += loss.total;
    loss_sum.state += loss.state;
    loss_sum.power += loss.power;
    loss_sum.turn += loss.turn;
    loss_sum.shoot += loss.shoot;
    loss_sum.rel += loss.rel;
    ++steps_since_row;
    const int64_t step = opt.step;
    const bool last = step >= p.steps;
    const bool stop = hooks.stop_requested && hooks.stop_requested();
    if (step % p.log_every == 0 || last || stop || step % p.val_every == 0) {
      const auto now = clock::now();
      row = WmTrainRow{};
      row.step = step;
      const double inv = 1.0 / static_cast<double>(steps_since_row);
      row.parts = loss;
      row.parts.total = loss_sum.total * inv;
      row.parts.state = loss_sum.state * inv;
      row.parts.power = loss_sum.power * inv;
      row.parts.turn = loss_sum.turn * inv;
      row.parts.shoot = loss_sum.shoot * inv;
      row.parts.rel = loss_sum.rel * inv;
      row.loss = row.parts.total;
      row.lr = info.lr;
      row.grad_norm = info.grad_norm;
      row.steps_in_window = T;
      const double dt = std::chrono::duration<double>(now - t_row).count();
      row.tokens_per_s = dt > 0 ? static_cast<double>(tokens_since_row) / dt : 0.0;
      row.seconds = std::chrono::duration<double>(now - t_start).count();
      if ((step % p.val_every == 0 || last || stop) && !val_windows.empty()) {
        row.val_parts = wm_evaluate_loss(model, episodes, val_windows, val_steps, p.val_batch);
        row.val_loss = row.val_parts.total;
      }
      if (hooks.on_row) hooks.on_row(row);
      t_row = clock::now();  // validation time does not count against tokens/s
      tokens_since_row = 0;
      loss_sum = WmLoss{};
      steps_since_row = 0;
    }
    if ((step % p.checkpoint_every == 0 || last || stop) && hooks.on_checkpoint)
      hooks.on_checkpoint(step);
    if (stop) break;
  }
  return row;
}

}  // namespace poslab::wm
