// Length-lab language-model benchmarks: training-step throughput (forward + backward +
// AdamW) of the shipped size (E 64, 4 heads, 2 layers, L 128, batch 16) per encoding, and the
// latency of evaluating 8L = 1024 positions of one window under a RoPE scaling (the panel's
// slider target: under 50 ms). A "token" is one predicted byte.
// Run: build/release/bench/poslab_bench --benchmark_filter=lm
#include <benchmark/benchmark.h>

#include "core/lm/lm.hpp"
#include "core/lm/lm_train.hpp"
#include "core/nn/adamw.hpp"

namespace {
using namespace poslab;
using namespace poslab::lm;

LmConfig shipped(LmPosition p) {
  LmConfig c;  // the defaults are the shipped size
  c.position = p;
  return c;
}

std::vector<uint8_t> bench_text(size_t n) {
  std::vector<uint8_t> t(n);
  const char* s = "The quick brown fox jumps over the lazy dog; 春眠不觉晓，处处闻啼鸟。\n";
  const size_t len = std::char_traits<char>::length(s);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<uint8_t>(s[i % len]);
  return t;
}

// args: position, threads
void BM_lm_train_step(benchmark::State& state) {
  const LmConfig c = shipped(static_cast<LmPosition>(state.range(0)));
  LmModel m(c);
  m.init(1);
  m.set_threads(static_cast<int>(state.range(1)));
  const int B = 16, T = c.context;
  const auto text = bench_text(100000);
  nn::AdamWParams ap;
  auto opt = nn::adamw_init(m.params.size());
  const auto mask = lm_decay_mask(c);
  int64_t step = 0;
  for (auto _ : state) {
    const auto bytes = lm_batch(text, B, T, 1, ++step);
    m.zero_grad();
    benchmark::DoNotOptimize(m.forward(bytes.data(), B, T));
    m.backward();
    nn::adamw_step(ap, m.params, m.grads, opt, mask);
  }
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * B * T,
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_lm_train_step)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {1, 2}})
    ->ArgNames({"position", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// args: position, scaling (RopeScaling), threads
void BM_lm_eval_8L(benchmark::State& state) {
  const LmConfig c = shipped(static_cast<LmPosition>(state.range(0)));
  LmModel m(c);
  m.init(1);
  m.set_threads(static_cast<int>(state.range(2)));
  m.set_scaling({static_cast<RopeScaling>(state.range(1)), 8.0});
  const int T = 8 * c.context;
  const auto text = bench_text(static_cast<size_t>(T) + 1);
  for (auto _ : state) benchmark::DoNotOptimize(m.forward(text.data(), 1, T));
}
BENCHMARK(BM_lm_eval_8L)
    ->Args({3, 0, 1})
    ->Args({3, 4, 1})
    ->Args({3, 4, 2})
    ->Args({4, 0, 2})
    ->Args({5, 0, 2})
    ->ArgNames({"position", "scaling", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
