// The worker side of a background job: cancel flag, pause gate, progress counter and
// status line, shared between the worker thread and the panel that owns the job.
#include "app/widgets/background_job.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace poslab::app {

namespace {
// The jobs the frames run (browser build): weak, so a dropped job (abandon, a new start, a
// closed panel) leaves the list at the next pump. Only the main thread touches it.
std::vector<std::weak_ptr<detail::SteppedState>>& stepped_jobs() {
  static std::vector<std::weak_ptr<detail::SteppedState>> jobs;
  return jobs;
}

// The live jobs with steps left; the list loses the rest.
std::vector<std::shared_ptr<detail::SteppedState>> live_jobs() {
  auto& jobs = stepped_jobs();
  std::vector<std::shared_ptr<detail::SteppedState>> live;
  std::vector<std::weak_ptr<detail::SteppedState>> keep;
  for (auto& w : jobs)
    if (auto s = w.lock(); s && !s->done()) {
      live.push_back(s);
      keep.push_back(w);
    }
  jobs.swap(keep);
  return live;
}
}  // namespace

void detail::register_stepped(const std::shared_ptr<SteppedState>& state) {
  stepped_jobs().push_back(state);
}

bool pump_jobs(double seconds) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  // The longest step seen in this frame: a step starts only if one that long still fits in
  // the slice (the first always runs, so every job moves), so the slice is rarely overrun.
  double longest = 0;
  auto live = live_jobs();
  for (bool ran = true; ran;) {
    ran = false;
    for (auto& s : live) {
      if (s->done() || s->paused()) continue;
      if (longest > 0 && since(t0) + longest > seconds) return jobs_pending();
      const auto t = clock::now();
      s->run_step();
      longest = std::max(longest, since(t));
      ran = true;
    }
  }
  return jobs_pending();
}

bool jobs_pending() {
  for (auto& s : live_jobs())
    if (!s->paused()) return true;
  return false;
}

std::vector<std::pair<int64_t, int64_t>> jobs_progress() {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& s : live_jobs()) out.push_back(s->done_of_total());
  return out;
}

bool JobControl::checkpoint() {
  if (kJobsInline) return !cancelled();  // one thread: a pause is the frames not stepping
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
