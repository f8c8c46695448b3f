// The worker side of a background job: cancel flag, pause gate, progress counter and
// status line, shared between the worker thread and the panel that owns the job.
#include "app/widgets/background_job.hpp"

namespace poslab::app {

bool JobControl::checkpoint() {
  if (paused_.load(std::memory_order_relaxed) && !cancelled()) {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return !paused_.load() || cancelled(); });
  }
  return !cancelled();
}

void JobControl::set_progress(int64_t done, int64_t total) {
  total_.store(total, std::memory_order_relaxed);
  done_.store(done, std::memory_order_relaxed);
}

void JobControl::set_status(std::string text) {
  std::lock_guard lock(mutex_);
  status_ = std::move(text);
}

void JobControl::request_cancel() {
  {
    std::lock_guard lock(mutex_);  // under the lock: a waiter cannot miss the wake-up
    cancel_.store(true);
  }
  wake_.notify_all();
}

void JobControl::set_paused(bool paused) {
  {
    std::lock_guard lock(mutex_);
    paused_.store(paused);
  }
  wake_.notify_all();
}

JobProgress JobControl::snapshot() const {
  JobProgress p;
  p.paused = paused_.load(std::memory_order_relaxed);
  p.done = done_.load(std::memory_order_relaxed);
  p.total = total_.load(std::memory_order_relaxed);
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::lock_guard lock(mutex_);
  p.status = status_;
  return p;
}

}  // namespace poslab::app
