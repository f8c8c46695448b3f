// Re-encoding a large float32 KV cache (16 layers x 8 heads x 4096 positions x head dim
// 128 = 256 MiB of keys) in place, against copying the same bytes with memcpy in the same
// run: the rotation is memory-bound, so copy bandwidth is the yardstick (target >= 1/2).
//   build/<dir>/bench/poslab_bench --benchmark_filter=kv_
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "core/kv/kv_shift_f32.hpp"

using namespace poslab;

namespace {

constexpr int kLayers = 16, kHeads = 8, kPositions = 4096, kHeadDim = 128;
constexpr std::size_t kFloats = std::size_t{kLayers} * kHeads * kPositions * kHeadDim;
constexpr std::size_t kBytes = kFloats * sizeof(float);

std::vector<float> filled_cache() {
  std::vector<float> v(kFloats);
  for (std::size_t i = 0; i < kFloats; ++i)
    v[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
  return v;
}

// A stitch-like shift: slot n was computed at n + 4096 and is now used at n.
KvShiftTable shift_table(RopeLayout layout) {
  RopeParams p;
  p.head_dim = kHeadDim;
  p.layout = layout;
  std::vector<double> from(kPositions), to(kPositions);
  for (int n = 0; n < kPositions; ++n) {
    from[n] = n + 4096.0;
    to[n] = n;
  }
  return kv_shift_table(p, from, to);
}

}  // namespace

static void bm_kv_shift_f32(benchmark::State& state) {
  const auto layout = state.range(0) == 0 ? RopeLayout::half_split : RopeLayout::interleaved;
  std::vector<float> keys = filled_cache();
  const KvShiftTable table = shift_table(layout);
  for (auto _ : state) {
    kv_shift_apply_f32(table, keys.data(), std::size_t{kLayers} * kHeads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kBytes));
  state.SetLabel(layout == RopeLayout::half_split ? "half-split, in place, 256 MiB"
                                                  : "interleaved, in place, 256 MiB");
}
BENCHMARK(bm_kv_shift_f32)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(1.0);

static void bm_kv_copy(benchmark::State& state) {
  std::vector<float> src = filled_cache(), dst(kFloats, 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kBytes));
  state.SetLabel("memcpy of the same 256 MiB");
}
BENCHMARK(bm_kv_copy)->Unit(benchmark::kMillisecond)->MinTime(1.0);

static void bm_kv_shift_table(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(shift_table(RopeLayout::half_split));
  state.SetLabel("cos/sin of the delta, 4096 positions x 64 pairs, in double");
}
BENCHMARK(bm_kv_shift_table)->Unit(benchmark::kMillisecond);
