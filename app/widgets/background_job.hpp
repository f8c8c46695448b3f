// A computation that a panel starts, polls once per frame and can cancel: short ones (an
// attention matrix, a KV session) and long ones (training a model for minutes, with
// pause/resume, a progress counter and typed progress reports). One job kind for both
// builds: a job is a sequence of bounded steps (start_steps; start() is a one-step job). On
// the desktop a worker thread runs the steps in a loop; in the single-threaded browser the
// frame runs steps until its time slice is used (pump_jobs), so the page keeps drawing. In
// the headless --check/--screenshot modes poll() waits for the result, so checks see it.
// No ImGui here: the worker side (JobControl) is what core code and tests see.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "app/app_context.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {

// The browser build is single-threaded (no -pthread, so its page needs no COOP/COEP
// headers): there a job's steps run inside the frames (pump_jobs), never inside start().
#ifdef __EMSCRIPTEN__
inline constexpr bool kJobsInline = true;
#else
inline constexpr bool kJobsInline = false;
#endif

namespace detail {
// What pump_jobs sees of a job run by the frames (the browser): one step at a time.
struct SteppedState {
  virtual ~SteppedState() = default;
  virtual bool done() const = 0;    // the last step ran (or threw)
  virtual bool paused() const = 0;  // Pause was asked: no steps until Resume
  virtual void run_step() = 0;      // one bounded step
  virtual std::pair<int64_t, int64_t> done_of_total() const = 0;  // set_progress's numbers
};
// Hands a job to the frames (kJobsInline): pump_jobs runs its steps until it is done or the
// job is dropped (the registry keeps only a weak reference).
void register_stepped(const std::shared_ptr<SteppedState>& state);
}  // namespace detail

// In the browser build: runs steps of the running jobs, round robin, while a step as long as
// the longest seen in this call still fits in `seconds` (the first step always runs), or
// until no job has a step to run; the frame calls it once. Returns whether a job still
// has steps (the frame rule then asks for the next frame). Does nothing on the desktop.
bool pump_jobs(double seconds);
// Whether a job run by the frames has steps left (never on the desktop: threads run them).
bool jobs_pending();
// The progress (done, total) of each job run by the frames with steps left (the browser's
// test hook reports it).
std::vector<std::pair<int64_t, int64_t>> jobs_progress();

// What the panel can read about a job while it runs (a snapshot; copies, no locks held).
struct JobProgress {
  bool running = false;  // a worker is active (finished results not yet polled count too)
  bool paused = false;   // pause() was asked; the worker waits at its next checkpoint()
  int64_t done = 0;      // work units done (set_progress), [0, total]
  int64_t total = 0;     // work units in all; 0 = unknown (draw an indeterminate bar)
  double seconds = 0;    // wall time since start
  std::string status;    // the worker's last status line ("epoch 3, loss 0.12")
  // done / total in [0, 1], or -1 when the total is unknown.
  double fraction() const {
    return total > 0 ? static_cast<double>(done) / static_cast<double>(total) : -1.0;
  }
};

// The worker's side: check cancelled() often (or hand cancel_flag() to a core function
// taking `const std::atomic<bool>*`), call checkpoint() where pausing is safe, and report
// progress. Thread-safe; the panel reads it through BackgroundJob.
class JobControl {
 public:
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }
  // Blocks while the job is paused (on the desktop; in the browser the frames do not run a
  // paused job's steps); returns false once it is cancelled (then return soon).
  bool checkpoint();
  void set_progress(int64_t done, int64_t total);
  void set_status(std::string text);

  // Owner side (BackgroundJob).
  void request_cancel();
  void set_paused(bool paused);
  JobProgress snapshot() const;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

 private:
  std::atomic<bool> cancel_{false};
  std::atomic<bool> paused_{false};
  std::atomic<int64_t> done_{0}, total_{0};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::string status_;
};

// JobControl plus a typed report channel: the worker publishes its latest Report (a loss
// curve so far, a partial result), the panel takes it when a new one arrived.
template <class Report>
class JobChannel : public JobControl {
 public:
  void report(Report r) {
    std::lock_guard lock(report_mutex_);
    latest_ = std::move(r);
    ++sequence_;
  }
  // The latest report if it is newer than `seen` (then `seen` is updated).
  std::optional<Report> take_report(uint64_t& seen) const {
    std::lock_guard lock(report_mutex_);
    if (sequence_ == seen || !latest_) return std::nullopt;
    seen = sequence_;
    return latest_;
  }

 private:
  mutable std::mutex report_mutex_;
  std::optional<Report> latest_;
  uint64_t sequence_ = 0;
};

// How a job ended, handed out once by poll().
template <class Result>
struct JobOutcome {
  std::string key;              // the key the job was started with
  std::optional<Result> value;  // set when the work returned normally and was not cancelled
  std::string error;            // what() of an exception the work threw (not when cancelled)
  Message error_message;        // the same as a message: core's (translatable, tr_format)
                                // when it threw an InputError with one, else plain text
  bool cancelled = false;       // cancel() or a newer start() asked it to stop
  double seconds = 0;           // wall time of the work
};

// One job slot of a panel. `key` names what is being computed (e.g. the settings as a
// preset string), so a panel can tell whether the running job is still wanted.
template <class Result, class Report = std::monostate>
class BackgroundJob {
 public:
  using Control = JobChannel<Report>;
  using Work = std::function<Result(Control&)>;
  // One bounded step (a training step, an episode, a chunk of an evaluation): returns the
  // result after the last one, else nothing. It is called again until it returns a value
  // or throws, also after a cancel: a step sees control.cancelled() and ends the job
  // (keeping what it must, e.g. a checkpoint) by returning a value or throwing.
  using Step = std::function<std::optional<Result>(Control&)>;

  BackgroundJob() = default;
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;
  ~BackgroundJob() { stop(); }

  // Starts a job of one step: `work` whole (short work, or work that cannot be cut).
  void start(std::string key, Work work) {
    start_steps(std::move(key),
                [work = std::move(work)](Control& c) -> std::optional<Result> { return work(c); });
  }
  // Starts a job of steps: on the desktop on a new thread, in the browser in the frames
  // (never inside this call). A job still running is cancelled and joined (or dropped)
  // first, its result lost, so at most one job per slot exists.
  void start_steps(std::string key, Step step) {
    stop();
    auto state = std::make_shared<State>();
    state->key = std::move(key);
    state->step = std::move(step);
    state_ = state;
    if constexpr (kJobsInline)
      detail::register_stepped(state);
    else
      thread_ = std::thread([state] {
        while (!state->done()) {
          state->control.checkpoint();  // pausing blocks here, between steps
          state->run_step();
        }
      });
  }

  bool running() const { return state_ != nullptr; }
  bool finished() const { return state_ && state_->finished.load(std::memory_order_acquire); }
  // Key of the running (or finished, not yet polled) job; empty when idle.
  const std::string& key() const { return state_ ? state_->key : empty_; }
  // Asks the worker to stop; poll() then reports it as cancelled. Does not block.
  void cancel() {
    if (state_) state_->control.request_cancel();
  }
  // For work that cannot look at its cancel flag (a file being read): the slot is free at
  // once, without waiting, and the worker finishes on its own with its result dropped. The
  // work must own everything it touches (captures by value), as every job's work does.
  void abandon() {
    if (!state_) return;
    state_->control.request_cancel();
    state_->control.set_paused(false);
    if (thread_.joinable()) thread_.detach();
    state_.reset();
    seen_report_ = 0;
  }
  void pause(bool paused) {
    if (state_) state_->control.set_paused(paused);
  }
  bool paused() const { return state_ && state_->control.snapshot().paused; }
  JobProgress progress() const {
    if (!state_) return {};
    JobProgress p = state_->control.snapshot();
    p.running = true;
    return p;
  }
  // The worker's latest report, if newer than the last one taken.
  std::optional<Report> take_report() {
    return state_ ? state_->control.take_report(seen_report_) : std::nullopt;
  }

  // Blocks until the job returns (a paused job is resumed first so it can finish); in the
  // browser its remaining steps run here.
  void wait() {
    if (!state_) return;
    state_->control.set_paused(false);
    if (thread_.joinable()) thread_.join();
    if constexpr (kJobsInline)
      while (!state_->done()) state_->run_step();
  }

  // Once the worker has returned: its outcome (once), else nothing. Never blocks.
  std::optional<JobOutcome<Result>> poll() {
    if (!finished()) return std::nullopt;
    if (thread_.joinable()) thread_.join();
    JobOutcome<Result> out;
    State& s = *state_;
    out.key = s.key;
    out.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s.control.started).count();
    out.cancelled = s.control.cancelled();
    if (!out.cancelled) {
      if (s.error) {
        try {
          std::rethrow_exception(s.error);
        } catch (const InputError& e) {
          out.error = e.what();
          out.error_message = e.message();
        } catch (const std::exception& e) {
          out.error = e.what();
          out.error_message = message_plain(out.error);
        } catch (...) {
          out.error = "unknown error";
          out.error_message = message_plain(out.error);
        }
      } else {
        out.value = std::move(s.value);
      }
    }
    state_.reset();
    seen_report_ = 0;
    return out;
  }

  // poll() for a panel: waits for the result in the headless modes when asked (short jobs;
  // a long training job passes wait_when_headless = false), else keeps frames coming while
  // the worker runs.
  std::optional<JobOutcome<Result>> poll(AppContext& ctx, bool wait_when_headless = true) {
    if (!state_) return std::nullopt;
    if (wait_when_headless && ctx.waits_for_jobs()) wait();
    ctx.request_frames(2);
    return poll();
  }

 private:
  struct State : detail::SteppedState {
    std::string key;
    Control control;
    Step step;
    std::optional<Result> value;
    std::exception_ptr error;
    std::atomic<bool> finished{false};

    bool done() const override { return finished.load(std::memory_order_acquire); }
    bool paused() const override { return control.snapshot().paused && !control.cancelled(); }
    std::pair<int64_t, int64_t> done_of_total() const override {
      const JobProgress p = control.snapshot();
      return {p.done, p.total};
    }
    void run_step() override {
      if (done()) return;
      try {
        if (auto r = step(control)) value.emplace(std::move(*r));
      } catch (...) {
        error = std::current_exception();
      }
      if (value || error) {
        step = nullptr;  // what the steps captured goes now, on the thread that ran them
        finished.store(true, std::memory_order_release);
      }
    }
  };
  void stop() {
    if (!state_) return;
    state_->control.request_cancel();
    if constexpr (!kJobsInline) wait();  // the browser drops the steps not yet run
    state_.reset();
  }

  std::shared_ptr<State> state_;
  std::thread thread_;
  uint64_t seen_report_ = 0;
  std::string empty_;
};

}  // namespace poslab::app
