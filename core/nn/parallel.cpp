// The thread pool behind nn::parallel_for (parallel.hpp): workers started once and kept, which
// wait for a call's chunks by spinning briefly (the layers of a training step call back to
// back) and then sleeping. The caller runs chunks itself and takes any chunk no worker has
// started, so a busy machine where the workers are slow to wake costs little against one
// thread. Which thread runs a chunk never changes a result: the chunks are fixed.
#include "core/nn/parallel.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace poslab::nn::detail {
namespace {

// True on a pool worker and on a caller while its call runs: a nested call runs inline.
thread_local bool tl_in_parallel = false;

struct ChunkJob {
  int t = 0;
  int64_t n = 0, chunk = 0;
  ChunkFn fn = nullptr;
  void* ctx = nullptr;
};

void run_chunk(const ChunkJob& j, int i) {
  const int64_t b = i * j.chunk, e = std::min(j.n, b + j.chunk);
  if (b < e) j.fn(j.ctx, b, e);
}

// The old way, for a call while another thread holds the pool: one thread per chunk.
void run_on_new_threads(const ChunkJob& j) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(j.t - 1));
  std::exception_ptr error;
  std::mutex error_mu;
  auto guarded = [&](int i) {
    try {
      run_chunk(j, i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  };
  for (int i = 1; i < j.t; ++i) {
    try {
      threads.emplace_back([&guarded, i] {
        tl_in_parallel = true;
        guarded(i);
      });
    } catch (const std::system_error& err) {
      for (auto& th : threads) th.join();
      throw Error("could not start thread " + std::to_string(i + 1) + " of " + std::to_string(j.t) +
                  " (" + err.what() + "); use fewer --threads");
    }
  }
  guarded(0);
  for (auto& th : threads) th.join();
  if (error) std::rethrow_exception(error);
}

// Waits while busy() for at most kSpin, with the CPU's pause hint, before the caller
// sleeps. Short on purpose: on a loaded machine a thread that spins (or yields) between calls
// never sleeps, so the scheduler stops favouring it and it is not there when the next call
// comes; a thread woken from sleep is run at once. The spin only bridges back-to-back calls.
constexpr auto kSpin = std::chrono::microseconds(10);
template <class Busy>
void spin_while(Busy busy) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (busy() && std::chrono::steady_clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
}

class ThreadPool {
 public:
  ThreadPool() = default;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() = delete;  // see pool()

  // One caller at a time (call_mu_); false when another thread holds the pool.
  bool try_run(const ChunkJob& j) {
    std::unique_lock<std::mutex> call(call_mu_, std::try_to_lock);
    if (!call.owns_lock() || j.t > 0xffff) return false;  // next_ holds 16-bit chunk counts
    grow(j.t - 1);
    // No thread reads job_ now: every chunk of the last job is done, and a chunk is claimed
    // (next_) before job_ is read. Storing next_ publishes job_ to the claimers.
    job_ = j;
    error_ = nullptr;
    done_.store(0, std::memory_order_relaxed);
    uint64_t g = (gen_.load(std::memory_order_relaxed) + 1) & 0xffffffffu;
    if (g == 0) g = 1;  // 0 is what a worker that never ran has seen
    next_.store(g << 32 | static_cast<uint64_t>(j.t) << 16 | 1u, std::memory_order_release);
    {
      const std::lock_guard<std::mutex> lock(mu_);
      gen_.store(g, std::memory_order_release);
    }
    wake_.notify_all();
    run_counted(0);
    for (int i = 0; claim(g, &i);) run_counted(i);
    // Chunks claimed by workers may still run: spin briefly, then sleep until the last ends.
    spin_while([&] { return done_.load(std::memory_order_acquire) < j.t; });
    {
      std::unique_lock<std::mutex> lock(mu_);
      idle_.wait(lock, [&] { return done_.load(std::memory_order_acquire) >= j.t; });
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return true;
  }

 private:
  void grow(int want) {
    while (static_cast<int>(workers_.size()) < want) {
      try {
        workers_.emplace_back([this] { worker(); });
      } catch (const std::system_error& err) {
        throw Error("could not start thread " + std::to_string(workers_.size() + 2) + " of " +
                    std::to_string(want + 1) + " (" + err.what() + "); use fewer --threads");
      }
    }
  }

  // Claims the next chunk of job generation g into *i; false when g is not the current job
  // or all of its chunks are taken. next_ packs (generation, chunk count, next chunk).
  bool claim(uint64_t g, int* i) {
    uint64_t v = next_.load(std::memory_order_acquire);
    for (;;) {
      const int t = static_cast<int>((v >> 16) & 0xffffu), k = static_cast<int>(v & 0xffffu);
      if ((v >> 32) != g || k >= t) return false;
      if (next_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        *i = k;
        return true;
      }
    }
  }

  // Runs claimed chunk i of job_ and counts it done (waking the caller after the last).
  void run_counted(int i) {
    try {
      run_chunk(job_, i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
    const int t = job_.t;  // read before the count: after it the caller may start a new job
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == t) {
      const std::lock_guard<std::mutex> lock(mu_);
      idle_.notify_all();
    }
  }

  void worker() {
    tl_in_parallel = true;
    uint64_t seen = 0;
    for (;;) {
      // The next call of a training step often comes within microseconds.
      spin_while([&] { return gen_.load(std::memory_order_acquire) == seen; });
      if (gen_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return gen_.load(std::memory_order_relaxed) != seen; });
      }
      seen = gen_.load(std::memory_order_acquire);
      for (int i = 0; claim(seen, &i);) run_counted(i);
    }
  }

  std::mutex call_mu_;   // held by the caller whose job runs
  std::mutex mu_;        // the sleeping: workers on wake_, the caller on idle_
  std::mutex error_mu_;  // error_ while chunks run
  std::condition_variable wake_, idle_;
  std::vector<std::thread> workers_;
  ChunkJob job_;
  std::exception_ptr error_;
  std::atomic<uint64_t> gen_{0};   // the current job's generation (32 bits)
  std::atomic<uint64_t> next_{0};  // generation << 32 | chunk count << 16 | next chunk
  std::atomic<int> done_{0};       // chunks of the current job finished
};

// Never destroyed: a thread still calling parallel_for at exit must not find it gone (the
// order of static destructors is not defined); its workers sleep and end with the process.
ThreadPool& pool() {
  static ThreadPool* const p = new ThreadPool;
  return *p;
}

}  // namespace

void parallel_run(int t, int64_t n, int64_t chunk, ChunkFn fn, void* ctx) {
  const ChunkJob j{t, n, chunk, fn, ctx};
  if (tl_in_parallel) {  // nested: this thread runs every chunk, in order
    for (int i = 0; i < t; ++i) run_chunk(j, i);
    return;
  }
  struct Mark {
    Mark() { tl_in_parallel = true; }
    ~Mark() { tl_in_parallel = false; }
    Mark(const Mark&) = delete;
    Mark& operator=(const Mark&) = delete;
  } mark;
  if (!pool().try_run(j)) run_on_new_threads(j);
}

}  // namespace poslab::nn::detail
