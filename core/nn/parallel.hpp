// Splitting loops over threads for the world model's layers. Work items are independent
// (each writes its own outputs), so the result does not depend on the thread count; a
// fixed split (contiguous chunks) keeps runs reproducible.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "core/common/errors.hpp"

namespace poslab::nn {

// Threads to use for a request: 0 means the machine's hardware concurrency, at least 1.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Most threads a request may name: 4 per core (at least 4). More only slow a run down,
// and 100,000 of them exhaust the process (issue 29).
inline int max_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return 4 * std::max(1, static_cast<int>(hw));
}

// A thread count given by the user under `flag`: 0 (all cores) or 1..max_threads(); anything
// else is an InputError naming the flag.
inline int threads_validate(long long requested, const char* flag) {
  if (requested < 0 || requested > max_threads())
    throw InputError(std::string(flag) + " = " + std::to_string(requested) + ": must be in [0, " +
                     std::to_string(max_threads()) + "] (0 = all cores, at most 4 per core)");
  return static_cast<int>(requested);
}

// Calls fn(begin, end) on contiguous chunks of [0, n), one chunk per thread (the caller's
// thread runs the first). Runs inline when threads <= 1 or n is below min_per_thread * 2.
// A thread that cannot be started is an Error (after joining the ones that did start).
template <class Fn>
void parallel_for(int threads, int64_t n, Fn&& fn, int64_t min_per_thread = 1) {
  if (n <= 0) return;
  int t = std::max(1, threads);
#ifdef __EMSCRIPTEN__
  t = 1;  // the browser build has no threads (no -pthread): the caller's thread runs it all
#endif
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
    try {
      if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
    } catch (const std::system_error& err) {
      for (auto& th : pool) th.join();
      throw Error("could not start thread " + std::to_string(i + 1) + " of " + std::to_string(t) +
                  " (" + err.what() + "); use fewer --threads");
    }
  }
  fn(int64_t{0}, std::min(n, chunk));
  for (auto& th : pool) th.join();
}

}  // namespace poslab::nn
