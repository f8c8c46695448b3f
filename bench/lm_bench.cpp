// Language-model benchmarks (issue 27): training throughput at the shipped size (forward +
// backward, no optimiser, as tools/torch/lm_bench.py's fwd_bwd column) on 1 and 2 threads,
// and the latency of evaluating 8L positions of one window under each RoPE scaling and each
// encoding (the length lab's sliders re-run it; target < 50 ms). A "token" is one predicted
// byte: a batch of B windows of T + 1 bytes has B*T of them.
// Run: build/release/bench/poslab_bench --benchmark_filter=lm
//   or, with PyTorch in the same run: /usr/bin/python3 tools/torch/lm_bench.py --cpp
//   build/release/bench/poslab_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/random.hpp"
#include "core/lm/lm.hpp"

namespace {
// Named one by one: a unity build puts this file beside wm_bench.cpp's `using namespace
// poslab::wm`, and both namespaces have a kLayerNormEps.
using poslab::RopeScaling;
using poslab::SeededStream;
using poslab::lm::lm_position_name;
using poslab::lm::lm_scaling_label;
using poslab::lm::LmConfig;
using poslab::lm::LmModel;
using poslab::lm::LmPosition;
using poslab::lm::LmScaling;

// B windows of T + 1 bytes of printable ASCII with spaces and newlines (text-like byte
// statistics; the cost does not depend on the values).
std::vector<uint8_t> lm_bench_bytes(int B, int T) {
  std::vector<uint8_t> bytes(static_cast<size_t>(B) * (T + 1));
  SeededStream rng(7, "lm_bench", 0);
  for (uint8_t& b : bytes) {
    const uint64_t r = rng.next_u64() % 100;
    b = r < 15 ? uint8_t{' '} : r < 17 ? uint8_t{'\n'} : static_cast<uint8_t>('a' + r % 26);
  }
  return bytes;
}

LmPosition position_arg(int64_t i) {
  return static_cast<LmPosition>(i);
}

// args: position (enum index), batch B, predicted positions T, threads
void BM_lm_train_step(benchmark::State& state) {
  LmConfig c;  // the shipped size
  c.position = position_arg(state.range(0));
  const int B = static_cast<int>(state.range(1)), T = static_cast<int>(state.range(2));
  const std::vector<uint8_t> bytes = lm_bench_bytes(B, T);
  LmModel m(c);
  m.init(1);
  m.set_threads(static_cast<int>(state.range(3)));
  m.forward(bytes.data(), B, T);  // warm-up: activation buffers are allocated on first use
  m.backward();
  for (auto _ : state) {
    m.zero_grad();
    const double loss = m.forward(bytes.data(), B, T);
    m.backward();
    benchmark::DoNotOptimize(loss);
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(B) * T, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["params"] = static_cast<double>(m.params.size());
  state.SetLabel(lm_position_name(c.position));
}
BENCHMARK(BM_lm_train_step)
    ->ArgNames({"position", "B", "T", "threads"})
    ->ArgsProduct({{static_cast<int>(LmPosition::rope), static_cast<int>(LmPosition::alibi),
                    static_cast<int>(LmPosition::t5), static_cast<int>(LmPosition::learned)},
                   {16},
                   {128},
                   {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Evaluating one window of 8L predicted positions (forward only: logits, per-byte losses and
// every block's attention, what the length lab draws). One window runs on one thread (threads
// split the windows of a batch). args: position, scaling (RopeScaling index; rope only),
// threads.
void BM_lm_eval_8L(benchmark::State& state) {
  LmConfig c;
  c.position = position_arg(state.range(0));
  const int T = 8 * c.context;
  const std::vector<uint8_t> bytes = lm_bench_bytes(1, T);
  LmModel m(c);
  m.init(1);
  m.set_threads(static_cast<int>(state.range(2)));
  LmScaling s;
  s.scaling = static_cast<RopeScaling>(state.range(1));
  s.factor = 8.0;
  m.set_scaling(s);
  m.forward(bytes.data(), 1, T);  // warm-up
  for (auto _ : state) {
    const double loss = m.forward(bytes.data(), 1, T);
    benchmark::DoNotOptimize(loss);
  }
  state.SetLabel(std::string(lm_position_name(c.position)) + " " + lm_scaling_label(s));
}
BENCHMARK(BM_lm_eval_8L)
    ->ArgNames({"position", "scaling", "threads"})
    ->Args({static_cast<int>(LmPosition::rope), static_cast<int>(RopeScaling::none), 1})
    ->Args({static_cast<int>(LmPosition::rope), static_cast<int>(RopeScaling::yarn), 1})
    ->Args({static_cast<int>(LmPosition::rope), static_cast<int>(RopeScaling::dynamic_ntk), 1})
    ->Args({static_cast<int>(LmPosition::alibi), 0, 1})
    ->Args({static_cast<int>(LmPosition::t5), 0, 1})
    ->Args({static_cast<int>(LmPosition::learned), 0, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
