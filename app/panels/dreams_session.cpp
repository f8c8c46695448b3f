// The dream lab's model and session (dreams_panel.hpp): the checkpoint read on the model
// job (after the user's approval of a named file), the session started, stepped and
// restarted on the dream runner's worker, and the dataset file's episode count.
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "app/app_context.hpp"
#include "app/panels/arena_help.hpp"
#include "app/panels/dreams_panel.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dreams/dream_lab_io.hpp"

namespace poslab::app {
namespace {

using wm::DreamLabSettings;
using wm::DreamVariant;

}  // namespace

// ---- model and session -----------------------------------------------------------------
// The checkpoint is read on the model job (a 1.7 KB file once asked for 12.5 GB and held
// the window for 70 s); the session waits for it. A checkpoint a link or a pasted preset
// names is not read until the user approves it (model_controls).
void DreamsPanel::ensure_model(AppContext& ctx) {
  DreamsUi& u = ui_;
  poll_model(ctx);
  const std::string path = io::dreams_model_path(u.lab);
  if (path == u.model_path) return;
  // The browser build keeps the paper-size models (5.4 MB each) beside the page, not in its
  // first load: fetched when first asked for. The desktop has every shipped model on disk.
  if (u.lab.model.empty() && !ctx.fetch_files({path}).done) {
    u.model.reset();
    u.model_error = ctx.tr("dreams.fetching_model");
    ctx.request_frames(2);
    return;
  }
  u.model_job.abandon();  // an older read still running: its result is not wanted
  u.model_path = path;
  u.model.reset();
  u.model_error.clear();
  u.model_waiting = false;
  u.applied.reset();  // a new model starts a new session
  std::error_code ec;
  if (u.lab.model.empty() && !std::filesystem::exists(path, ec)) {
    // No shipped weights in this tree (yet): a state, not a fault. Named
    // files that are missing, and any file that does not load, get the banner
    // below.
    u.model_error = "no trained model at " + path +
                    ": train one (poslab-cli wm train) or name a checkpoint "
                    "in the preset";
    return;
  }
  if (!u.lab.model.empty() && !u.confirmed_model.approves(u.lab.model)) {
    u.model_waiting = true;
    u.model_error = ctx.tr("dreams.model_waiting");
    return;
  }
  const DreamVariant window = u.lab.window;
  u.model_job.start(path, [path, window](auto&) { return io::dreams_load_model(path, window); });
  if (ctx.waits_for_jobs()) poll_model(ctx);  // checks and captures see the model
}

// Takes the model job's outcome: the model, or its error on the banner.
void DreamsPanel::poll_model(AppContext& ctx) {
  DreamsUi& u = ui_;
  auto out = u.model_job.poll(ctx, true);
  if (!out || out->key != u.model_path) return;
  u.applied.reset();  // the session starts over with the model
  if (out->value) {
    u.model = std::move(*out->value);
  } else if (out->cancelled) {
    u.model_error = ctx.tr("dreams.model_cancelled");
  } else {
    u.model_error = out->error;
    ctx.report_error(ctx.tr("dreams.where_model"),
                     tr_args(ctx.tr("dreams.model_failed"), {{"error", out->error}}));
  }
}

// The dataset's episode count for the episode slider (read in the helper
// process once per file); errors become the banner.
void DreamsPanel::ensure_file_info(AppContext& ctx) {
  DreamsUi& u = ui_;
  if (u.lab.start != wm::DreamSource::file || awaiting_approval() || u.info_file == u.lab.file)
    return;
  u.info_file = u.lab.file;
  u.file_episodes = -1;
  try {
    u.file_episodes = io::BnbDatasetReader(u.lab.file).info().num_episodes;
  } catch (const Error& e) {
    ctx.report_error(ctx.tr("title.dreams"), e.what());
  }
}

// A new session when the settings changed: started on the worker (the prompt can be
// 511 model steps), so the UI keeps drawing; headless runs wait for it.
void DreamsPanel::ensure_session(AppContext& ctx) {
  DreamsUi& u = ui_;
  // A file the user has not approved is not opened: the seed's episode runs
  // meanwhile.
  const bool pending = awaiting_approval();
  const wm::DreamLabSession key = wm::dreams_session_of(u.lab, pending);
  if (key == u.applied && (u.runner.has_engine() || u.runner.running())) return;
  if (u.model_job.running()) return;  // "starting the dream" until the model is read
  if (u.runner.running()) {           // let the worker return the engine first
    u.runner.cancel();
    u.runner.poll(ctx, false);
    if (u.runner.running()) return;
  }
  u.applied = key;
  u.replay_note = {};
  u.pending_restart = -1;
  u.step_accum = 0;
  u.frames_in_session = 0;
  DreamLabSettings s = u.lab;
  if (pending) s.start = wm::DreamSource::seed;
  // The worker's own copy of the model: each start (and the default episode's, if the
  // first fails) dreams with a clone of it. "Starting the dream" until the worker is done.
  std::shared_ptr<const wm::DreamModel> model(u.model ? u.model->clone() : nullptr);
  u.runner.start([s] { return io::dreams_session_config(s); }, std::move(model),
                 wm::dream_session_config(DreamLabSettings{}));
  if (ctx.waits_for_jobs()) poll_runner(ctx, true);  // checks and captures see the session
}

// "Restart dream here": the engine and a copy of the timeline go to the worker, which
// replays reality to frame `at` and prompts the model there; the UI shows the old
// timeline until it is done.
void DreamsPanel::start_restart(int at) {
  DreamsUi& u = ui_;
  const bool helm_flew = u.runner.timeline().dream_steps() > 0 && u.helm_at_start >= 0;
  u.runner.restart(at, helm_flew);
}

void DreamsPanel::start_steps(int n) {
  DreamsUi& u = ui_;
  if (!u.runner.has_engine()) return;
  if (u.runner.timeline().dream_steps() == 0) {
    u.helm_at_start = u.lab.helm;
    u.follow_at_start = u.lab.follow;
  } else if (u.replay_note.empty() && (u.lab.helm != u.helm_at_start ||
                                       (u.lab.helm >= 0 && u.lab.follow != u.follow_at_start))) {
    u.replay_note = share_message("share.why.helm_changed");
  }
  wm::HelmInput helm;
  if (u.lab.helm >= 0) {
    helm.slot = u.lab.helm;
    helm.action = u.helm_keys ? arena_helm_action() : bnb::ShipAction{};
    helm.real_follows = u.lab.follow;
  }
  u.runner.advance(n, helm);
}

// Takes the worker's result when it is done (new frames, or a started or restarted
// session); `block`: wait for it first.
void DreamsPanel::poll_runner(AppContext& ctx, bool block) {
  DreamsUi& u = ui_;
  const auto ev = u.runner.poll(ctx, block);
  if (!ev) return;
  if (!ev->ok) {
    u.applied.reset();  // the engine is gone: the session starts over
    if (ev->cancelled) return;
    if (!ev->error.empty()) ctx.report_error(ctx.tr("title.dreams"), ev->error);
    u.lab.playing = false;
    return;
  }
  if (ev->new_timeline) {
    if (!ev->start_error.empty()) {
      ctx.report_error(ctx.tr("title.dreams"), ev->start_error);
      u.replay_note =
          share_message("share.why.start_failed", {message_arg("error", ev->start_error)});
    }
    if (ev->restarted_at >= 0) restarted(ev->restarted_at, ev->helm_flew);
    return;
  }
  if (ev->steps > 0 && ev->seconds > 0) u.steps_per_s = ev->steps / ev->seconds;
}

// After a restart at frame `at`: closed loop without the helm replays reality up to `at`
// the way a prompt of `at` steps does, so the preset says it with from = at and the CLI
// replays it; otherwise the session cannot be replayed from its preset.
void DreamsPanel::restarted(int at, bool helm_flew) {
  DreamsUi& u = ui_;
  u.lab.cursor = -1;
  if (u.lab.loop == wm::DreamLoop::closed && !helm_flew && at <= DreamLabSettings::from_range.hi) {
    u.lab.from = at;
    u.applied = wm::dreams_session_of(u.lab, awaiting_approval());
  } else if (u.replay_note.empty()) {
    u.replay_note = share_message("share.why.restarted");
  }
}

// Queued: the worker runs it as soon as it is free (draw() starts it), so the click never
// waits for a running step.
void DreamsPanel::restart_at(AppContext& ctx, int frame) {
  DreamsUi& u = ui_;
  if (u.runner.timeline().frames.empty()) return;  // the session is still starting
  u.pending_restart = std::clamp(frame, 0, static_cast<int>(u.runner.timeline().frames.size()) - 1);
  if (ctx.waits_for_jobs()) {
    if (u.runner.running()) poll_runner(ctx, true);
    if (u.runner.has_engine()) {
      start_restart(std::exchange(u.pending_restart, -1));
      poll_runner(ctx, true);
    }
  }
}

}  // namespace poslab::app
