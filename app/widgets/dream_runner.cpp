// The dream lab's worker protocol (dream_runner.hpp): lend the engine, take it back.
#include "app/widgets/dream_runner.hpp"

#include <utility>

#include "app/app_context.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {

void DreamRunner::start(std::function<wm::DreamSessionConfig()> make_config,
                        std::shared_ptr<const wm::DreamModel> model,
                        wm::DreamSessionConfig fallback) {
  engine_.reset();
  timeline_ = wm::DreamTimeline{};
  job_.start("start", [make_config = std::move(make_config), model = std::move(model),
                       fallback = std::move(fallback)](auto&) {
    Result r;
    const auto begin = [&](const wm::DreamSessionConfig& config) {
      r.engine = std::make_unique<wm::DreamEngine>();
      r.timeline.emplace();
      wm::dream_session_begin(config, model ? model->clone() : nullptr, *r.engine, *r.timeline);
    };
    try {
      begin(make_config());
    } catch (const Error& e) {
      r.start_error = e.what();
      begin(fallback);
    }
    return r;
  });
}

void DreamRunner::restart(int at, bool helm_flew) {
  if (!engine_) return;
  job_.start("restart",
             [engine = std::shared_ptr<wm::DreamEngine>(std::move(engine_)),
              timeline = std::make_shared<wm::DreamTimeline>(timeline_), at, helm_flew](auto&) {
               wm::dream_session_restart(*engine, *timeline, at);
               Result r;
               r.engine = std::make_unique<wm::DreamEngine>(std::move(*engine));
               r.timeline = std::move(*timeline);
               r.restarted_at = at;
               r.helm_flew = helm_flew;
               return r;
             });
}

void DreamRunner::advance(int steps, const wm::HelmInput& helm) {
  if (!engine_) return;
  job_.start("steps", [engine = std::shared_ptr<wm::DreamEngine>(std::move(engine_)), steps,
                       helm](auto& control) {
    Result r;
    r.frames = wm::dream_session_advance(*engine, steps, helm);
    control.set_progress(1, 1);
    r.engine = std::make_unique<wm::DreamEngine>(std::move(*engine));
    return r;
  });
}

std::optional<DreamRunnerEvent> DreamRunner::poll(AppContext& ctx, bool block) {
  if (block) job_.wait();
  auto out = job_.poll(ctx, true);  // headless: waits, so each frame is one step
  if (!out) return std::nullopt;
  DreamRunnerEvent ev;
  ev.cancelled = out->cancelled;
  ev.error = out->error;
  ev.seconds = out->seconds;
  if (!out->value) return ev;  // the engine is gone with the job
  Result& r = *out->value;
  ev.ok = true;
  engine_ = std::move(r.engine);
  if (r.timeline) {
    timeline_ = std::move(*r.timeline);
    ev.new_timeline = true;
    ev.start_error = r.start_error;
    ev.restarted_at = r.restarted_at;
    ev.helm_flew = r.helm_flew;
    return ev;
  }
  ev.steps = static_cast<int>(r.frames.size());
  wm::dream_session_append(timeline_, std::move(r.frames));
  return ev;
}

void DreamRunner::reset() {
  engine_.reset();
  timeline_ = wm::DreamTimeline{};
}

}  // namespace poslab::app
