// nn::parallel_for on its persistent thread pool (core/nn/parallel.cpp): every index runs
// exactly once in the documented contiguous chunks for any thread count, back-to-back calls
// never mix their chunks, nested calls and calls from several threads at once finish with the
// right answer, and an exception thrown in a chunk (the caller's or a worker's) reaches the
// caller and leaves the pool usable (the thread-per-call version terminated the process).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/nn/parallel.hpp"

using poslab::nn::parallel_for;

TEST_CASE("nn parallel_for: each index once, in the documented chunks", "[nn][parallel]") {
  for (int t = 1; t <= 5; ++t)
    for (int64_t n : {1, 2, 3, 7, 64, 1000}) {
      std::vector<int> hits(static_cast<size_t>(n), 0);
      std::vector<int64_t> begins(static_cast<size_t>(n), -1);
      parallel_for(t, n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) ++hits[i], begins[i] = b;
      });
      const int64_t tt = std::min<int64_t>(t, n), chunk = (n + tt - 1) / tt;
      for (int64_t i = 0; i < n; ++i) {
        INFO("threads " << t << ", n " << n << ", index " << i);
        CHECK(hits[i] == 1);
        CHECK(begins[i] == (tt <= 1 ? 0 : i / chunk * chunk));
      }
    }
}

TEST_CASE("nn parallel_for: many calls back to back keep their own chunks", "[nn][parallel]") {
  std::vector<int64_t> v(37);
  for (int call = 0; call < 5000; ++call) {
    parallel_for(1 + call % 4, static_cast<int64_t>(v.size()), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) v[i] += i + call;
    });
  }
  for (size_t i = 0; i < v.size(); ++i)
    CHECK(v[i] == 5000 * static_cast<int64_t>(i) + 4999LL * 5000 / 2);
}

TEST_CASE("nn parallel_for: nested calls and several callers at once", "[nn][parallel]") {
  std::atomic<int64_t> total{0};
  auto nested_sum = [&] {
    parallel_for(2, 8, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        parallel_for(2, 100, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
    });
  };
  nested_sum();
  CHECK(total == 800);
  total = 0;
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) nested_sum();
    });
  for (auto& th : callers) th.join();
  CHECK(total == 3 * 50 * 800);
}

TEST_CASE("nn parallel_for: an exception in a chunk reaches the caller", "[nn][parallel]") {
  for (int64_t bad : {0, 3}) {  // chunk 0 runs on the caller, chunk 3 (of 4) usually not
    INFO("throwing at index " << bad);
    CHECK_THROWS_AS(parallel_for(4, 4,
                                 [&](int64_t b, int64_t) {
                                   if (b == bad) throw std::runtime_error("chunk failed");
                                 }),
                    std::runtime_error);
  }
  std::atomic<int> n{0};  // and the pool still works
  parallel_for(4, 4, [&](int64_t b, int64_t e) { n += static_cast<int>(e - b); });
  CHECK(n == 4);
}
