// The language models' training loop (see lm_train.hpp).
#include "core/lm/lm_train.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"

namespace poslab::lm {

void lm_train_validate(const LmTrainSettings& s) {
  require_in_range("batch", s.batch, LmTrainSettings::batch_range);
  require_in_range("steps", static_cast<double>(s.steps), LmTrainSettings::steps_range);
  require_in_range("window", s.window, LmTrainSettings::window_range);
  require_in_range("log_every", static_cast<double>(s.log_every), LmTrainSettings::log_every_range);
  require_in_range("valid_windows", s.valid_windows, LmTrainSettings::valid_windows_range);
  require_in_range("factor", s.scaling.factor, LmScaling::factor_range);
  nn::adamw_validate(s.adam);
}

std::vector<uint8_t> lm_batch(const std::vector<uint8_t>& text, int B, int T, uint64_t seed,
                              int64_t step) {
  const int64_t n = static_cast<int64_t>(text.size());
  if (n < int64_t{T} + 1)
    throw InputError("text of " + std::to_string(n) + " bytes is shorter than a window of " +
                     std::to_string(T + 1) + " bytes; use a shorter window or more text");
  SeededStream rng(seed, "lm:batch", static_cast<uint64_t>(step));
  const uint64_t span = static_cast<uint64_t>(n - T);  // offsets 0 .. n - T - 1
  std::vector<uint8_t> out(static_cast<size_t>(B) * (T + 1));
  for (int b = 0; b < B; ++b) {
    const int64_t off = static_cast<int64_t>(rng.next_u64() % span);
    std::copy_n(text.begin() + off, T + 1, out.begin() + static_cast<int64_t>(b) * (T + 1));
  }
  return out;
}

std::vector<int64_t> lm_window_offsets(int64_t text_size, int T, int windows) {
  const int64_t last = text_size - T - 1;
  if (last < 0)
    throw InputError("text of " + std::to_string(text_size) +
                     " bytes is shorter than a window of " + std::to_string(T + 1) +
                     " bytes; use fewer positions or a longer text");
  const int w = static_cast<int>(std::min<int64_t>(windows, last + 1));
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(std::max(w, 0)));
  for (int k = 0; k < w; ++k) out.push_back(w == 1 ? 0 : last * k / (w - 1));
  return out;
}

double lm_text_bpb(LmModel& m, const std::vector<uint8_t>& text, int T, int windows) {
  const auto offs = lm_window_offsets(static_cast<int64_t>(text.size()), T, windows);
  const int chunk = 16;
  double sum = 0;
  std::vector<uint8_t> buf;
  for (size_t k0 = 0; k0 < offs.size(); k0 += chunk) {
    const int B = static_cast<int>(std::min<size_t>(chunk, offs.size() - k0));
    buf.resize(static_cast<size_t>(B) * (T + 1));
    for (int b = 0; b < B; ++b)
      std::copy_n(text.begin() + offs[k0 + b], T + 1, buf.begin() + int64_t{b} * (T + 1));
    sum += m.forward(buf.data(), B, T) * B;
  }
  return sum / static_cast<double>(offs.size()) / std::numbers::ln2;
}

std::string lm_train_csv_header() {
  return "step,train_bpb,valid_bpb,lr,grad_norm,seconds";
}

std::string lm_train_csv_row(const LmTrainRow& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%lld,%.6f,%.6f,%.6g,%.6g,%.3f", static_cast<long long>(r.step),
                r.train_bpb, r.valid_bpb, r.lr, r.grad_norm, r.seconds);
  return buf;
}

LmTrainLoop lm_train_begin(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s) {
  lm_train_validate(s);
  LmTrainLoop loop;
  loop.T = lm_train_window(s, m.config());
  if (optim.m.size() != m.params.size()) optim = nn::adamw_init(m.params.size());
  m.set_threads(s.threads);
  m.set_scaling(s.scaling);
  loop.mask = lm_decay_mask(m.config());
  loop.t0 = std::chrono::steady_clock::now();
  return loop;
}

bool lm_train_step(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s,
                   const LmCorpus& corpus, LmTrainLoop& loop,
                   const std::function<void(const LmTrainRow&)>& on_row,
                   const std::function<void(int64_t, double)>& on_step) {
  if (optim.step >= s.steps) return false;
  const int T = loop.T;
  const int64_t step = optim.step + 1;
  const auto bytes = lm_batch(corpus.train, s.batch, T, s.seed, step);
  m.zero_grad();
  const double loss = m.forward(bytes.data(), s.batch, T);
  loop.since += loss;
  ++loop.since_n;
  m.backward();
  const nn::AdamWStepInfo info = nn::adamw_step(s.adam, m.params, m.grads, optim, loop.mask);
  if (on_step) on_step(optim.step, loss / std::numbers::ln2);
  if (optim.step % s.log_every == 0 || optim.step == s.steps) {
    LmTrainRow row;
    row.step = optim.step;
    row.train_bpb = loop.since / static_cast<double>(loop.since_n) / std::numbers::ln2;
    row.valid_bpb = lm_text_bpb(m, corpus.valid, T, s.valid_windows);
    row.lr = info.lr;
    row.grad_norm = info.grad_norm;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop.t0).count();
    loop.since = 0, loop.since_n = 0;
    if (on_row) on_row(row);
  }
  return optim.step < s.steps;
}

bool lm_train(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s, const LmCorpus& corpus,
              const std::atomic<bool>* cancel, const std::function<void(const LmTrainRow&)>& on_row,
              const std::function<void(int64_t, double)>& on_step) {
  LmTrainLoop loop = lm_train_begin(m, optim, s);
  while (optim.step < s.steps) {
    if (cancel && cancel->load()) return false;
    lm_train_step(m, optim, s, corpus, loop, on_row, on_step);
  }
  return true;
}

}  // namespace poslab::lm
