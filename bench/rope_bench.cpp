// RoPE throughput: rotating a (T, D) block of keys directly (rope_apply: validation, pow
// per pair and cos/sin per entry on every call) and from a RopeTable built once (issue 11).
#include <benchmark/benchmark.h>

#include "core/rope/rope.hpp"
#include "core/rope/rope_table.hpp"

using namespace poslab;

namespace {

struct RopeCase {
  RopeParams p;
  RowMatrix x;
  std::vector<double> pos;
};

RopeCase make_case(const benchmark::State& state) {
  RopeCase c;
  c.p.head_dim = static_cast<int>(state.range(1));
  c.p.scaling = RopeScaling::yarn;  // the most work per frequency
  const int tokens = static_cast<int>(state.range(0));
  c.x = RowMatrix::Random(tokens, c.p.head_dim);
  c.pos.resize(tokens);
  for (int t = 0; t < tokens; ++t) c.pos[t] = t;
  return c;
}

}  // namespace

static void bm_rope_apply(benchmark::State& state) {
  const RopeCase c = make_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(rope_apply(c.p, c.x, c.pos));
  state.SetItemsProcessed(state.iterations() * c.x.rows());
}
BENCHMARK(bm_rope_apply)->Args({1024, 128})->Args({4096, 128})->Args({1024, 512});

// The table is built once; each iteration rotates a copy of x in place (the copy is part
// of rope_apply's cost too, which returns a new matrix).
static void bm_rope_table_apply(benchmark::State& state) {
  const RopeCase c = make_case(state);
  const RopeTable table(c.p, c.pos);
  for (auto _ : state) {
    RowMatrix y = c.x;
    table.apply(y);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * c.x.rows());
}
BENCHMARK(bm_rope_table_apply)->Args({1024, 128})->Args({4096, 128})->Args({1024, 512});

// Building the table (what one direct call pays every time).
static void bm_rope_table_build(benchmark::State& state) {
  const RopeCase c = make_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(RopeTable(c.p, c.pos).cos().data());
  state.SetItemsProcessed(state.iterations() * c.x.rows());
}
BENCHMARK(bm_rope_table_build)->Args({1024, 512});

BENCHMARK_MAIN();
