// Splitting loops over threads for the world model's layers. Work items are independent
// (each writes its own outputs), so the result does not depend on the thread count; a
// fixed split (contiguous chunks) keeps runs reproducible.
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace poslab::nn {

// Threads to use for a request: 0 means the machine's hardware concurrency, at least 1.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Calls fn(begin, end) on contiguous chunks of [0, n), one chunk per thread (the caller's
// thread runs the first). Runs inline when threads <= 1 or n is below min_per_thread * 2.
template <class Fn>
void parallel_for(int threads, int64_t n, Fn&& fn, int64_t min_per_thread = 1) {
  if (n <= 0) return;
  int t = std::max(1, threads);
  t = static_cast<int>(
      std::min<int64_t>(t, std::max<int64_t>(1, n / std::max<int64_t>(1, min_per_thread))));
  if (t <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  const int64_t chunk = (n + t - 1) / t;
  for (int i = 1; i < t; ++i) {
    const int64_t b = i * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(int64_t{0}, std::min(n, chunk));
  for (auto& th : pool) th.join();
}

}  // namespace poslab::nn
