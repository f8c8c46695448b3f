// Model-kit benchmarks (issue 38): the cost of one nn::parallel_for call with little work
// (4096 floats), on 1 and 2 threads. Starting a thread per call cost 37 to 43 us here under
// load; the persistent pool (core/nn/parallel.cpp) a few us. A training step of the language
// model makes about 50 such calls.
// Run: build/release/bench/poslab_bench --benchmark_filter=BM_nn
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/nn/parallel.hpp"

namespace {

// args: threads
void BM_nn_parallel_for_call(benchmark::State& state) {
  std::vector<float> v(4096, 1.0f);
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    poslab::nn::parallel_for(threads, static_cast<int64_t>(v.size()), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) v[i] = v[i] * 0.999f + 0.001f;
    });
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_nn_parallel_for_call)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
