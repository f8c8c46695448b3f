// Attention lab throughput: logits + causal-free softmax for every head at 1024 tokens,
// head dim 64, 8 heads (the target: under 20 ms on one core), reported as time
// and GFLOP/s (2 T^2 Dh multiply-adds per head for Q K^T; the softmax is not counted).
// Also the whole lab step (projections, RoPE, bias, kernel) for the panel's budget.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/attention/attention_kernel.hpp"

using namespace poslab;

static void bm_attention_scores_softmax(benchmark::State& state) {
  const int tokens = static_cast<int>(state.range(0));
  const int head_dim = static_cast<int>(state.range(1));
  const int heads = static_cast<int>(state.range(2));
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> q(static_cast<size_t>(heads) * tokens * head_dim), k(q.size());
  for (auto& v : q) v = normal(rng);
  for (auto& v : k) v = normal(rng);
  std::vector<float> scores(static_cast<size_t>(tokens) * tokens), weights(scores.size());
  const float scale = 1.0f / 8.0f;
  for (auto _ : state) {
    for (int h = 0; h < heads; ++h) {
      const size_t off = static_cast<size_t>(h) * tokens * head_dim;
      attention_scores_softmax(q.data() + off, k.data() + off, tokens, head_dim, scale, nullptr,
                               false, scores.data(), weights.data());
    }
    benchmark::DoNotOptimize(weights.data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * tokens * tokens * head_dim * heads;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetLabel(attention_kernel_isa());
}
BENCHMARK(bm_attention_scores_softmax)
    ->Args({1024, 64, 8})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

static void bm_attention_lab_step(benchmark::State& state) {
  AttentionParams p;
  p.encoding = static_cast<AttentionEncoding>(state.range(0));
  p.heads = 8;
  p.model_dim = 512;
  p.head_dim = 64;
  const AttentionModel m = attention_build(p, attention_count_input(1024));
  for (auto _ : state) benchmark::DoNotOptimize(attention_compute(m));
  state.SetLabel(attention_encoding_name(p.encoding));
}
BENCHMARK(bm_attention_lab_step)
    ->Arg(static_cast<int>(AttentionEncoding::rope))
    ->Arg(static_cast<int>(AttentionEncoding::alibi))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
