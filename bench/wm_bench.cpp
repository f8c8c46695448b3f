// World-model benchmarks: training-step throughput (forward + backward, no optimiser) for
// the tiny and paper presets, and the latency of one dream step with a full KV cache.
// A "token" is one S or A token of one ship: a window of T steps has T * 8 * 2 of them.
// Run: build/release/bench/poslab_bench --benchmark_filter=wm
#include <benchmark/benchmark.h>

#include "core/bnb/bnb_episode.hpp"
#include "core/wm/wm_decode.hpp"
#include "core/wm/world_model.hpp"

namespace {
using namespace poslab;
using namespace poslab::wm;

WmBatch bench_batch(int B, int T) {
  WmBatch b;
  b.batch = B;
  b.steps = T;
  b.tokens.assign(static_cast<size_t>(B) * T * kShips * kTokenDim, 0.0f);
  b.actions.assign(static_cast<size_t>(B) * T * kShips * 3, 0);
  b.valid.assign(static_cast<size_t>(B) * T, 1);
  for (int w = 0; w < B; ++w) {
    bnb::EpisodeSpec spec;
    spec.seed = 1000 + static_cast<uint64_t>(w);
    spec.config.team0_size = 4;
    spec.config.max_steps = T + 2;
    const bnb::EpisodeRecord rec = bnb::run_episode(spec);
    const int rows = std::min(T, rec.rows);
    std::copy_n(rec.tokens.begin(), rows * kShips * kTokenDim,
                b.tokens.begin() + static_cast<size_t>(w) * T * kShips * kTokenDim);
    std::copy_n(rec.actions.begin(), rows * kShips * 3,
                b.actions.begin() + static_cast<size_t>(w) * T * kShips * 3);
  }
  return b;
}

// args: preset (0 tiny, 1 paper), batch B, steps T, threads
void BM_wm_train_step(benchmark::State& state) {
  const WmConfig c = wm_preset(state.range(0) == 0 ? "tiny" : "paper");
  const int B = static_cast<int>(state.range(1)), T = static_cast<int>(state.range(2));
  const WmBatch batch = bench_batch(B, T);
  WorldModel m(c);
  m.init(1);
  m.set_threads(static_cast<int>(state.range(3)));
  m.forward(batch);  // warm-up: activation buffers are allocated once, on the first step
  m.backward();
  for (auto _ : state) {
    m.zero_grad();
    const WmLoss l = m.forward(batch);
    m.backward();
    benchmark::DoNotOptimize(l.total);
  }
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(B) * T * kShips * 2,
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["params"] = static_cast<double>(m.params.size());
}
BENCHMARK(BM_wm_train_step)
    ->ArgNames({"paper", "B", "T", "threads"})
    ->Args({0, 16, 32, 1})
    ->Args({0, 16, 32, 2})
    ->Args({1, 8, 32, 1})
    ->Args({1, 8, 32, 2})
    ->Args({1, 4, 96, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One dream step (S and A tokens of 8 ships through every block) with C steps cached.
void BM_wm_dream_step(benchmark::State& state) {
  const WmConfig c = wm_preset(state.range(0) == 0 ? "tiny" : "paper");
  WorldModel m(c);
  m.init(1);
  const WmBatch b = bench_batch(1, c.context + 1);
  WmDreamer d(m, WmOverflow::slide);
  for (int t = 0; t < c.context; ++t)
    d.step_with_actions(&b.tokens[t * kShips * kTokenDim], &b.actions[t * kShips * 3]);
  const float* st = &b.tokens[c.context * kShips * kTokenDim];
  const uint8_t* ac = &b.actions[c.context * kShips * 3];
  for (auto _ : state) {
    const WmStepResult r = d.step_with_actions(st, ac);  // cache stays full: slides
    benchmark::DoNotOptimize(r.state_pred.data());
  }
}
BENCHMARK(BM_wm_dream_step)->ArgName("paper")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
