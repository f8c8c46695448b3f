// The language model's kernels timed the same way natively and in WebAssembly (a benchmark:
// it reports, never gates): training throughput at the shipped size (forward + backward,
// B 16 x T 128, one thread; bench/lm_bench.cpp's BM_lm_train_step) and evaluating one window
// of 8L positions (BM_lm_eval_8L), without Google Benchmark so that em++ builds it too.
// tests/web/kernel_bench.sh builds it both ways and prints one JSON line per build.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "core/common/random.hpp"
#include "core/lm/lm.hpp"

namespace {

std::vector<uint8_t> bench_bytes(int B, int T) {  // text-like bytes, as lm_bench.cpp
  std::vector<uint8_t> bytes(static_cast<size_t>(B) * (T + 1));
  poslab::SeededStream rng(7, "lm_bench", 0);
  for (uint8_t& b : bytes) {
    const uint64_t r = rng.next_u64() % 100;
    b = r < 15 ? uint8_t{' '} : r < 17 ? uint8_t{'\n'} : static_cast<uint8_t>('a' + r % 26);
  }
  return bytes;
}

// CPU seconds of this process: CI's 2 cores are shared, so wall time says more about the
// neighbours than about the kernels. Under node, V8's process CPU time (user + system).
#ifdef __EMSCRIPTEN__
EM_JS(double, cpu_s, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#else
double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
#endif

// CPU seconds per call of f: repeated until min_s has passed (at least 3 calls), after a warm-up.
template <class F>
double seconds_per_call(F f, double min_s) {
  f();
  int n = 0;
  const double t0 = cpu_s();
  double t = t0;
  while (n < 3 || t - t0 < min_s) {
    f();
    ++n;
    t = cpu_s();
  }
  return (t - t0) / n;
}

}  // namespace

int main() {
  using poslab::lm::LmConfig;
  using poslab::lm::LmModel;
  LmConfig c;  // the shipped size, RoPE
  c.position = poslab::lm::LmPosition::rope;
  const int B = 16, T = 128;
  const std::vector<uint8_t> train_bytes = bench_bytes(B, T);
  LmModel m(c);
  m.init(1);
  m.set_threads(1);
  double train_loss = 0,
         eval_loss = 0;  // the last (same each time): a check that both builds agree
  const double train_s = seconds_per_call(
      [&] {
        m.zero_grad();
        train_loss = m.forward(train_bytes.data(), B, T);
        m.backward();
      },
      3.0);
  const int T8 = 8 * c.context;
  const std::vector<uint8_t> eval_bytes = bench_bytes(1, T8);
  LmModel e(c);
  e.init(1);
  e.set_threads(1);
  const double eval_s =
      seconds_per_call([&] { eval_loss = e.forward(eval_bytes.data(), 1, T8); }, 3.0);
  std::printf(
      "{\"train_tokens_per_s\": %.0f, \"train_step_ms\": %.2f, \"eval_8L_ms\": %.2f, "
      "\"eval_8L_positions\": %d, \"train_loss\": %.6f, \"eval_loss\": %.6f}\n",
      B * T / train_s, 1000 * train_s, 1000 * eval_s, T8, train_loss, eval_loss);
  return 0;
}
