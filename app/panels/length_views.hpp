// The length lab's UI state and the drawing pieces that only read it: the loss-against-
// position plot, the text coloured by surprise with its hover predictions, the heads view's
// heatmaps and the drawn-numbers record. The panel (length_panel.cpp) lays them out.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/length_train_view.hpp"
#include "app/widgets/background_job.hpp"
#include "core/lm/length_lab.hpp"

namespace poslab::app {

using LengthDataPtr = std::shared_ptr<const lm::LengthLabData>;
using LengthResultPtr = std::shared_ptr<const lm::LengthLabResult>;

struct LengthUi {
  lm::LengthLabSettings lab;
  // The shipped models and held-out text, loaded once by a job (io's length_lab_load).
  LengthDataPtr data;
  BackgroundJob<LengthDataPtr> load_job;
  FileFetch fetch;  // the browser build's fetch of the files io reads (AppContext::fetch_files)
  bool load_started = false;
  std::string load_error;  // why nothing could be loaded (shown in place of the views)
  // The computation: the last finished result stays on screen while a new one runs.
  LengthResultPtr shown;
  BackgroundJob<LengthResultPtr> job;
  lm::LengthLabSettings job_inputs;
  std::optional<lm::LengthLabSettings> failed;
  std::string last_error;
  // Heads view textures and what was last uploaded.
  gfx::HeatmapTexture heads_plain, heads_scaled;
  const lm::LengthLabResult* uploaded = nullptr;
  int text_chars_drawn = 0;   // characters the text view drew last frame (check_state)
  bool data_changed = false;  // a model was added to `data`: measure again
  // "Train your own" and whether the user's own command line asked it to start a run.
  LengthTrainView train;
  bool train_autostart = false;
};

// Settings that change the numbers (view-only choices reset to the defaults).
lm::LengthLabSettings length_compute_inputs(const lm::LengthLabSettings& s);

// (a) loss against position: one curve per model and scaling, L marked.
void length_draw_curves(const AppContext& ctx, const lm::LengthLabResult& r,
                        const lm::LengthLabSettings& view, float height, float scale);
// (b) the text, each character shaded by the mean bits of its bytes; hover: predictions.
// Returns the number of characters drawn.
int length_draw_text(AppContext& ctx, const lm::LengthLabResult& r, float scale);
// (c) the chosen layer and head of the text model, without and with the scaling.
void length_draw_heads(const AppContext& ctx, LengthUi& ui, const lm::LengthLabResult& r,
                       float scale);
// The numbers the panel drew, for the panel-vs-CLI test (tests/cli/panel_numbers_test.py).
void length_record_numbers(const lm::LengthLabResult& r);
// A byte shown in a prediction list: printable ASCII as itself, else "\xNN" ("\n" for 10).
std::string length_byte_text(int byte);

}  // namespace poslab::app
