// The KV lab panel's state (kv_panel.cpp): the settings, the shown session, the job that
// computes the next one and what was drawn, and which stepped run each action starts.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/kv_trained_view.hpp"
#include "app/panels/kv_views.hpp"
#include "app/widgets/background_job.hpp"
#include "core/kv/kv_session.hpp"

namespace poslab::app {

enum class KvOp { none, run, restart, append, slide, stitch, more };

using KvSessionPtr = std::shared_ptr<const KvSession>;

// A job's run of `op` on the shown session `base` (KvSessionRun: a step per piece of work).
std::unique_ptr<KvSessionRun> kv_op_run(KvOp op, const KvLabSettings& s, const KvSessionPtr& base);

// The panel's UI state: the lab settings (what presets capture), the last finished
// session, the background job computing the next one, and what was drawn (for checks).
struct KvUi {
  KvLabSettings lab;
  KvSessionPtr session;                      // last finished computation (never half-updated)
  std::optional<KvLabSettings> session_for;  // experiment() of the session's settings
  BackgroundJob<KvSessionPtr> job;           // running computation of job_for
  KvLabSettings job_for;                     // experiment() the running job computes
  std::optional<KvLabSettings> failed;       // experiment that failed (not retried until changed)
  KvPlotMetric plot_metric = KvPlotMetric::output;
  gfx::HeatmapTexture heat;
  std::string heat_key;  // what the heatmap texture currently shows
  int heat_rows = 0, heat_cols = 0;
  int strip_slots = 0;   // slots in the strip last drawn
  int meter_rows = 0;    // method rows in the error meters last drawn
  bool trained = false;  // the trained source (kv?weights=trained&...) is shown
  KvTrainedView tv;      // its state (kv_trained_view.hpp)
};

// The part of the settings that defines the experiment (not which method or layer is viewed).
KvLabSettings kv_experiment(const KvLabSettings& s);

}  // namespace poslab::app
