// The dream lab's worker protocol in one place: the session's engine (core/wm/
// dream_session.hpp: simulator, behaviour, the model's cache and where the dream stands) is
// moved into one job at a time and moved back with the job's result; the timeline stays on
// the UI thread, which draws it while a job runs and appends the frames a step job returns.
// Starts and restarts build a whole new timeline on the worker (a prompt can be 511 model
// steps), from values the job owns: nothing of the UI's state crosses the thread.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/widgets/background_job.hpp"
#include "core/wm/dream_session.hpp"

namespace poslab::app {

class AppContext;

// What a finished job changed, for the panel to react to (banners, notes).
struct DreamRunnerEvent {
  bool ok = false;            // the engine is back (else it is gone: the session starts over)
  bool cancelled = false;     // the job was cancelled
  std::string error;          // the job threw (not when cancelled)
  bool new_timeline = false;  // a start or a restart replaced the timeline
  std::string start_error;    // a start failed and the fallback session runs instead
  int restarted_at = -1;      // a restart: the frame it re-seeded from
  bool helm_flew = false;     // ... and the helm had flown the dream before it
  int steps = 0;              // a step job: frames appended
  double seconds = 0;         // the job's wall time
};

class DreamRunner {
 public:
  // The timeline the UI draws (empty until the first start returns).
  const wm::DreamTimeline& timeline() const { return timeline_; }
  wm::DreamTimeline& timeline() { return timeline_; }
  bool running() const { return job_.running(); }
  bool has_engine() const { return engine_ != nullptr; }  // idle with a session: can step
  void cancel() { job_.cancel(); }
  void wait() { job_.wait(); }

  // A new session on the worker: dream_session_begin(make_config(), a clone of `model`).
  // When make_config or begin throws, `fallback` is begun instead and the event carries the
  // error. The old session is dropped at once (the timeline empties).
  void start(std::function<wm::DreamSessionConfig()> make_config,
             std::shared_ptr<const wm::DreamModel> model, wm::DreamSessionConfig fallback);
  // "Restart dream here": the engine and a copy of the timeline go to the worker, which
  // replays reality to frame `at` and prompts the model there. Needs has_engine().
  void restart(int at, bool helm_flew);
  // `steps` dream steps with the helm's input: the engine goes to the worker. Needs
  // has_engine().
  void advance(int steps, const wm::HelmInput& helm);
  // Takes the finished job's result (engine back, timeline replaced or frames appended);
  // `block`: wait for it first. Nothing when no job finished.
  std::optional<DreamRunnerEvent> poll(AppContext& ctx, bool block);
  // Drops the session (no job may be running: cancel and poll first).
  void reset();

 private:
  struct Result {
    std::unique_ptr<wm::DreamEngine> engine;
    std::vector<wm::DreamFrame> frames;
    std::optional<wm::DreamTimeline> timeline;  // replaces the timeline when set
    std::string start_error;
    int restarted_at = -1;
    bool helm_flew = false;
  };
  std::unique_ptr<wm::DreamEngine> engine_;  // null while lent to the job
  wm::DreamTimeline timeline_;
  BackgroundJob<Result> job_;
};

}  // namespace poslab::app
