// The world model's training loop (see train.hpp): batch k+1 for step k+1, forward,
// backward, one AdamW step; log rows, validation and checkpoint hooks at their intervals.
#include "core/wm/train.hpp"

#include <chrono>
#include <string>
#include <utility>

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

// wm_evaluate_loss's sums: the parts weighted by their element counts, batch by batch.
struct WmLossSums {
  WmLoss sum;
  double state = 0, power = 0, turn = 0, shoot = 0, rel = 0;
  void add(const WmLoss& l) {
    state += l.state * static_cast<double>(l.state_count);
    power += l.power * static_cast<double>(l.action_count);
    turn += l.turn * static_cast<double>(l.action_count);
    shoot += l.shoot * static_cast<double>(l.action_count);
    rel += l.rel * static_cast<double>(l.rel_count);
    sum.state_count += l.state_count;
    sum.action_count += l.action_count;
    sum.rel_count += l.rel_count;
  }
  WmLoss mean() const {
    WmLoss out = sum;
    if (out.state_count > 0) out.state = state / static_cast<double>(out.state_count);
    if (out.action_count > 0) {
      const double n = static_cast<double>(out.action_count);
      out.power = power / n;
      out.turn = turn / n;
      out.shoot = shoot / n;
    }
    if (out.rel_count > 0) out.rel = rel / static_cast<double>(out.rel_count);
    out.total =
        out.state + kActionWeight * (out.power + out.turn + out.shoot) + kRelWeight * out.rel;
    return out;
  }
};

namespace {

// The batch of windows [i, i + batch) (clipped to the list).
WmBatch wm_window_batch(const std::vector<bnb::EpisodeRecord>& episodes,
                        const std::vector<WmWindow>& windows, size_t i, int steps, int batch) {
  const size_t end = std::min(windows.size(), i + static_cast<size_t>(batch));
  const std::vector<WmWindow> part(windows.begin() + static_cast<long>(i),
                                   windows.begin() + static_cast<long>(end));
  return wm_make_batch(episodes, part, steps);
}

}  // namespace

struct WmTrainer::Validation {
  size_t next = 0;       // the first window of the next batch
  bool forward = false;  // that batch's forward is under way (staged)
  WmLossSums sums;
};

// The optimiser step under way: its forward, then its backward, one stage per step().
struct WmTrainer::Pass {
  int batch = 0, steps = 0;  // B and T of its batch (the model keeps the batch itself)
  bool backward = false;     // the forward is done
};

WmLoss wm_evaluate_loss(WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                        const std::vector<WmWindow>& windows, int steps, int batch) {
  WmLossSums sums;
  for (size_t i = 0; i < windows.size(); i += static_cast<size_t>(batch))
    sums.add(model.forward(wm_window_batch(episodes, windows, i, steps, batch)));
  return sums.mean();
}

WmTrainer::WmTrainer(WorldModel& model, nn::AdamWState& opt, const nn::AdamWParams& adam,
                     const WmDataParams& data, const WmTrainParams& p,
                     const std::vector<bnb::EpisodeRecord>& episodes, const EpisodeSplit& split,
                     WmTrainHooks hooks)
    : model_(model),
      opt_(opt),
      adam_(adam),
      data_(data),
      p_(p),
      episodes_(episodes),
      split_(split),
      hooks_(std::move(hooks)) {
  wm_train_validate(p);
  nn::adamw_validate(adam);
  wm_data_validate(data, model.config());
  if (opt.m.size() != model.params.size())
    throw InputError("optimiser state has " + std::to_string(opt.m.size()) + " moments for " +
                     std::to_string(model.params.size()) + " parameters");
  mask_ = wm_decay_mask(model.layout());
  val_steps_ = wm_long_steps(data, model.config());
  val_windows_ = wm_val_windows(episodes, split.val, val_steps_, p.val_windows);
  t_start_ = t_row_ = std::chrono::steady_clock::now();
}

WmTrainer::~WmTrainer() = default;

bool WmTrainer::step() {
  if (validation_) {  // a row's validation: batches of windows, one forward stage per step
    Validation& v = *validation_;
    if (!v.forward) {
      model_.forward_begin(
          wm_window_batch(episodes_, val_windows_, v.next, val_steps_, p_.val_batch));
      v.forward = true;
    }
    if (model_.forward_step()) return true;
    v.forward = false;
    v.sums.add(model_.loss());
    v.next += static_cast<size_t>(p_.val_batch);
    if (v.next < val_windows_.size()) return true;
    row_.val_parts = validation_->sums.mean();
    row_.val_loss = row_.val_parts.total;
    validation_.reset();
    end_row();
    return !stopped_ && opt_.step < p_.steps;
  }
  if (stopped_ || opt_.step >= p_.steps) return false;
  using clock = std::chrono::steady_clock;
  if (!pass_) {  // batch opt.step + 1 (index k): its windows, then the forward's stages
    const int64_t k = opt_.step;
    pass_ = std::make_unique<Pass>();
    pass_->steps = wm_train_steps_of_batch(data_, model_.config(), k);
    const auto windows = wm_train_windows(episodes_, split_.train, data_, model_.config(), k);
    const WmBatch batch = wm_make_batch(episodes_, windows, pass_->steps);
    pass_->batch = batch.batch;
    model_.zero_grad();
    model_.forward_begin(batch);
  }
  if (!pass_->backward) {
    if (model_.forward_step()) return true;
    pass_->backward = true;
    model_.backward_begin();
  }
  if (model_.backward_step()) return true;
  const int T = pass_->steps;
  tokens_since_row_ += static_cast<int64_t>(pass_->batch) * T * 2 * kShips;
  pass_.reset();
  const WmLoss loss = model_.loss();
  const auto info = nn::adamw_step(adam_, model_.params, model_.grads, opt_, mask_);
  loss_sum_.total += loss.total;
  loss_sum_.state += loss.state;
  loss_sum_.power += loss.power;
  loss_sum_.turn += loss.turn;
  loss_sum_.shoot += loss.shoot;
  loss_sum_.rel += loss.rel;
  ++steps_since_row_;
  const int64_t step = opt_.step;
  const bool last = step >= p_.steps;
  stop_ = hooks_.stop_requested && hooks_.stop_requested();
  row_due_ = step % p_.log_every == 0 || last || stop_ || step % p_.val_every == 0;
  if (row_due_) {
    const auto now = clock::now();
    row_ = WmTrainRow{};
    row_.step = step;
    const double inv = 1.0 / static_cast<double>(steps_since_row_);
    row_.parts = loss;
    row_.parts.total = loss_sum_.total * inv;
    row_.parts.state = loss_sum_.state * inv;
    row_.parts.power = loss_sum_.power * inv;
    row_.parts.turn = loss_sum_.turn * inv;
    row_.parts.shoot = loss_sum_.shoot * inv;
    row_.parts.rel = loss_sum_.rel * inv;
    row_.loss = row_.parts.total;
    row_.lr = info.lr;
    row_.grad_norm = info.grad_norm;
    row_.steps_in_window = T;
    const double dt = std::chrono::duration<double>(now - t_row_).count();
    row_.tokens_per_s = dt > 0 ? static_cast<double>(tokens_since_row_) / dt : 0.0;
    row_.seconds = std::chrono::duration<double>(now - t_start_).count();
    if ((step % p_.val_every == 0 || last || stop_) && !val_windows_.empty()) {
      validation_ = std::make_unique<Validation>();  // the next steps validate
      return true;
    }
  }
  end_row();
  return !stopped_ && opt_.step < p_.steps;
}

// After a step (and its row's validation): the row's hook, then the checkpoint's.
void WmTrainer::end_row() {
  const int64_t step = opt_.step;
  const bool last = step >= p_.steps;
  if (row_due_) {
    if (hooks_.on_row) hooks_.on_row(row_);
    t_row_ = std::chrono::steady_clock::now();  // validation time does not count against tokens/s
    tokens_since_row_ = 0;
    loss_sum_ = WmLoss{};
    steps_since_row_ = 0;
  }
  if ((step % p_.checkpoint_every == 0 || last || stop_) && hooks_.on_checkpoint)
    hooks_.on_checkpoint(step);
  stopped_ = stop_;
}

WmTrainRow wm_train(WorldModel& model, nn::AdamWState& opt, const nn::AdamWParams& adam,
                    const WmDataParams& data, const WmTrainParams& p,
                    const std::vector<bnb::EpisodeRecord>& episodes, const EpisodeSplit& split,
                    const WmTrainHooks& hooks) {
  WmTrainer trainer(model, opt, adam, data, p, episodes, split, hooks);
  while (trainer.step()) {
  }
  return trainer.last_row();
}

}  // namespace poslab::wm
