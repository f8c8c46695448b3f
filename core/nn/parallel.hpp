// Splitting loops over threads for the models' layers. Work items are independent (each
// writes its own outputs), so the result does not depend on the thread count; a fixed split
// (contiguous chunks) keeps runs reproducible. The chunks run on a persistent pool of worker
// threads (parallel.cpp): starting a thread per call made a second thread slower than one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <type_traits>
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

namespace detail {
using ChunkFn = void (*)(void* ctx, int64_t begin, int64_t end);
// Runs fn(ctx, b, e) on the chunks [i*chunk, min(n, (i+1)*chunk)) for i = 0..t-1 (empty ones
// skipped) and returns when all are done. The caller runs chunk 0 and takes any chunk no
// worker has taken yet; idle workers of the process-wide pool take the rest. A call from
// inside a chunk, or while another thread holds the pool, runs its chunks on threads of
// its own (or on the caller, nested). An exception from a chunk is rethrown here; a thread
// that cannot be started is an Error.
void parallel_run(int t, int64_t n, int64_t chunk, ChunkFn fn, void* ctx);
}  // namespace detail

// Calls fn(begin, end) on contiguous chunks of [0, n), one chunk per thread (the caller's
// thread runs the first). Runs inline when threads <= 1 or n is below min_per_thread * 2.
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
  using F = std::remove_reference_t<Fn>;
  detail::parallel_run(
      t, n, (n + t - 1) / t, [](void* ctx, int64_t b, int64_t e) { (*static_cast<F*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

// v as n zeros, the zeroing split over threads like the layers: a backward pass zeroes
// megabytes of scratch before it adds into them, which on one thread left the others idle.
// (Growing v zeroes its new part on this thread once; after the first step only the split
// fill runs.)
template <class S>
void zero_fill(std::vector<S>& v, int64_t n, int threads) {
  v.resize(static_cast<size_t>(n));
  S* d = v.data();
  parallel_for(
      threads, n, [d](int64_t b, int64_t e) { std::fill(d + b, d + e, S(0)); }, int64_t{1} << 15);
}

// dst (n) += src (n), split over threads the same way: a block's residual adds.
template <class S>
void add_into(S* dst, const S* src, int64_t n, int threads) {
  parallel_for(
      threads, n,
      [dst, src](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] += src[i];
      },
      int64_t{1} << 15);
}

}  // namespace poslab::nn
