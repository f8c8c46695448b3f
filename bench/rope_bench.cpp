// RoPE throughput: rotating a (T, D) block of keys and computing the angle table.
#include <benchmark/benchmark.h>

#include "core/rope/rope.hpp"

using namespace poslab;

static void bm_rope_apply(benchmark::State& state) {
  RopeParams p;
  p.head_dim = static_cast<int>(state.range(1));
  const int tokens = static_cast<int>(state.range(0));
  RowMatrix x = RowMatrix::Random(tokens, p.head_dim);
  std::vector<double> pos(tokens);
  for (int t = 0; t < tokens; ++t) pos[t] = t;
  for (auto _ : state) benchmark::DoNotOptimize(rope_apply(p, x, pos));
  state.SetItemsProcessed(state.iterations() * tokens);
}
BENCHMARK(bm_rope_apply)->Args({1024, 128})->Args({4096, 128});

BENCHMARK_MAIN();
