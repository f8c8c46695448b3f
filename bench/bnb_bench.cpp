// Boost and Broadside throughput in agent steps per second (items/s): the simulator with
// the scripted expert in 4v4, the noisy expert, and whole recorded episodes (tokens and
// actions, as `collect` makes them). End-to-end collection with the HDF5 writer is timed
// with the CLI instead: poslab-cli collect --episodes 7500 --threads 2 -o /tmp/x.h5
#include <benchmark/benchmark.h>

#include "core/bnb/bnb_episode.hpp"

using namespace poslab::bnb;

static void bm_bnb_sim_expert_4v4(benchmark::State& state) {
  uint64_t seed = 1;
  SimState s = sim_reset(seed, EpisodeConfig{4, 4, kMaxEpisodeSteps});
  int64_t steps = 0;
  for (auto _ : state) {
    if (s.done) s = sim_reset(++seed, EpisodeConfig{4, 4, kMaxEpisodeSteps});
    sim_step(s, expert_actions(s));
    ++steps;
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(bm_bnb_sim_expert_4v4);

static void bm_bnb_sim_only_4v4(benchmark::State& state) {
  uint64_t seed = 1;
  SimState s = sim_reset(seed, EpisodeConfig{4, 4, kMaxEpisodeSteps});
  const JointAction a = expert_actions(s);
  int64_t steps = 0;
  for (auto _ : state) {
    if (s.done) s = sim_reset(++seed, EpisodeConfig{4, 4, kMaxEpisodeSteps});
    sim_step(s, a);
    ++steps;
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(bm_bnb_sim_only_4v4);

static void bm_bnb_record_episode(benchmark::State& state) {
  const auto policy = static_cast<PolicyKind>(state.range(0));
  uint64_t seed = 1;
  int64_t steps = 0;
  for (auto _ : state) {
    EpisodeSpec spec;
    spec.seed = seed++;
    spec.policy = policy;
    spec.config = EpisodeConfig{4, 4, kMaxEpisodeSteps};
    const EpisodeRecord rec = run_episode(spec);
    steps += rec.rows - 1;
    benchmark::DoNotOptimize(rec.tokens.data());
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(bm_bnb_record_episode)
    ->Arg(static_cast<int>(PolicyKind::expert))
    ->Arg(static_cast<int>(PolicyKind::noisy_expert));
