// The KV lab's trained source in the panel (issue 39): its controls and one-click demos, the
// background job (one KvTrainedRun step per method, the model loaded by io on first use),
// the loss-per-position curves (the reference dashed), the per-block difference bars, the
// predicted bytes coloured by the extra loss, captions computed from the numbers shown, and
// the drawn-numbers record for the panel-vs-CLI test. kv_panel.cpp owns one KvTrainedView.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/panel.hpp"
#include "app/widgets/background_job.hpp"
#include "core/kv/kv_trained.hpp"

namespace poslab::app {

// The shipped model and held-out text one result used (kept for the next run).
struct KvTrainedData {
  lm::LengthLabModel model;
  std::vector<uint8_t> valid;
};
struct KvTrainedComputed {
  KvTrainedSettings lab;
  KvTrainedResult result;
  std::shared_ptr<const KvTrainedData> data;
  std::string load_error;  // the model file could not be read: which file and what to do
};
using KvTrainedPtr = std::shared_ptr<const KvTrainedComputed>;

struct KvTrainedView {
  KvTrainedSettings lab;                    // what the preset captures
  KvTrainedPtr shown;                       // the last finished result
  BackgroundJob<KvTrainedPtr> job;          // computing job_for
  KvTrainedSettings job_for;                // settings of the running job
  std::optional<KvTrainedSettings> failed;  // failed settings (not retried until changed)
  std::string last_error;                   // its message, shown in place
  int colour_by = 1;                        // method whose extra loss colours the bytes
  int smooth = 16;                          // stream curves: trailing mean of this many, [1, 128]
  int curves_drawn = 0, bars_drawn = 0, bytes_drawn = 0;  // for check_state
};

// Starts or cancels the job for `v.lab` (after the browser fetched the models); polls.
void kv_trained_schedule(AppContext& ctx, KvTrainedView& v);
// The trained source's controls (below the source switch).
void kv_trained_draw_controls(AppContext& ctx, KvTrainedView& v, float scale);
// Schedules (above), then draws the view in a child beside the controls; its rectangle.
ViewRect kv_trained_draw_view(AppContext& ctx, KvTrainedView& v, float scale);
// Loads a `kv?weights=trained&...` preset (InputError when bad).
void kv_trained_load(KvTrainedView& v, const std::string& preset);
// What "Export numbers" writes: poslab-cli kv's JSON of the shown result.
LabNumbers kv_trained_numbers(const KvTrainedView& v);
// "" when the shown result belongs to v.lab and everything was drawn; records the numbers.
std::string kv_trained_check_state(const KvTrainedView& v);
// The check presets of the trained source.
std::vector<std::string> kv_trained_check_presets();

}  // namespace poslab::app
