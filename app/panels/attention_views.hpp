// The attention lab's views beyond the main heatmap: the encoding's parameter controls,
// the cell tooltip with the term split, the demo views (extrapolation, RoPE decay, ALiBi slopes, T5
// buckets) and the drawn-numbers record for the panel-vs-CLI test. Split out of
// attention_panel.cpp, which holds the panel class, its controls and its job; all numbers come from
// core.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "core/attention/attention_lab.hpp"

namespace poslab::app {

// One finished computation (core's attention_lab_compute), only read after the worker.
struct AttentionComputed : AttentionLabResult {
  AttentionLabSettings inputs;  // compute_inputs() of the settings it belongs to
  std::string key;              // those inputs as a preset (upload key, CLI hint)
  double seconds = 0;           // wall time of the computation
  // weights = trained: the model and held-out text used (kept for the next job of the same
  // model), or why they could not be loaded (shown in place of the maps).
  std::shared_ptr<const AttentionTrainedData> trained_data;
  std::string load_error;
};

// An encoding's name in the interface language (attention.toml), for combos and captions.
const char* attention_encoding_text(const AppContext& ctx, AttentionEncoding e);
// The caption over the left (second = false) or right map of a side-by-side view.
std::string attention_caption(const AppContext& ctx, const AttentionComputed& c, bool second);
// Tooltip of cell (i, j) of result r of model m: logit, weight and the term split.
void attention_cell_tooltip(const AppContext& ctx, const AttentionComputed& c,
                            const AttentionModel& m, const AttentionResult& r, int i, int j);
// The body of that tooltip (inside an open tooltip): logit, weight and the named terms of
// core's attention_score_term_list, which sum to the logit shown.
void attention_cell_terms(const AppContext& ctx, const AttentionComputed& c,
                          const AttentionModel& m, const AttentionResult& r, int i, int j);
// Controls of the chosen encoding's own parameters (base, table length, RoPE, T5, ...).
void attention_encoding_controls(const AppContext& ctx, AttentionParams& p, float scale);
// Demo views; `demo` is the texture holding the demo's matrix.
void attention_draw_extrapolation(const AppContext& ctx, const AttentionComputed& c,
                                  gfx::HeatmapTexture& demo, float scale, float avail);
// RoPE's extrapolation: the slowest pair's angle against position, training's range shaded.
void attention_draw_angle_reach(const AppContext& ctx, const RopeAngleReach& r, int trained_length,
                                float scale, float width);
void attention_draw_decay(const AppContext& ctx, const AttentionComputed& c,
                          gfx::HeatmapTexture& demo, float scale, float avail);
// The ALiBi demo: the slopes table and every head's bias as small multiples on one colour
// scale. Returns the head clicked (to show it elsewhere), or -1.
int attention_draw_slopes(const AppContext& ctx, const AttentionComputed& c,
                          std::vector<std::unique_ptr<gfx::HeatmapTexture>>& heads, float scale,
                          float avail);
void attention_draw_buckets(const AppContext& ctx, const AttentionComputed& c,
                            gfx::HeatmapTexture& demo, float scale, float avail);
// The trained source (attention_trained_views.cpp): its controls (model, scaling, layer,
// head or mean, passage; `shown` bounds the sliders by the loaded model), the upload of its
// maps (false when nothing changed), its view, its --check (map_rows: the drawn map's rows)
// and its drawn-numbers record.
void attention_trained_controls(const AppContext& ctx, AttentionLabSettings& s,
                                const AttentionTrained* shown, float scale);
bool attention_trained_upload(const AttentionComputed& c, gfx::HeatmapTexture& a,
                              gfx::HeatmapTexture& b, ColorScaleKind kind, std::string& uploaded);
void attention_draw_trained(const AppContext& ctx, const AttentionComputed& c,
                            gfx::HeatmapTexture& a, gfx::HeatmapTexture& b, float scale,
                            float avail);
std::string attention_trained_check(const AttentionComputed& c, int map_rows);
void attention_record_trained(const AttentionComputed& c);
// Side by side (comparisons, permutation and shift demos): both maps and their difference.
void attention_draw_pair(const AppContext& ctx, const AttentionComputed& c, bool show_scores,
                         gfx::HeatmapTexture& main, gfx::HeatmapTexture& second,
                         gfx::HeatmapTexture& diff, float scale, float avail);
// Patch-grid mode (source = grid): the query row as a grid, the terrain, the full matrix.
// Clicking a patch sets s.query_row / query_col; the buttons switch s.params.encoding.
void attention_draw_grid_mode(const AppContext& ctx, const AttentionComputed& c,
                              AttentionLabSettings& s, gfx::HeatmapTexture& grid_a,
                              gfx::HeatmapTexture& grid_b, gfx::HeatmapTexture& terrain,
                              gfx::HeatmapTexture& main, float scale, float avail);
// Appends what the panel drew to $POSLAB_DRAWN_NUMBERS (app/widgets/drawn_numbers.hpp).
void attention_record_numbers(const AttentionComputed& c);
// Rows of a matrix into a drawn-numbers record, at "path/row": every row of a small matrix,
// the first, middle and last of a big one (keeps the record small).
template <class Matrix>
void attention_record_rows(nlohmann::json& n, const std::string& path, const Matrix& m) {
  const int R = static_cast<int>(m.rows());
  std::vector<int> pick;
  if (R <= 64)
    for (int r = 0; r < R; ++r) pick.push_back(r);
  else
    pick = {0, R / 2, R - 1};
  for (int r : pick) {
    std::vector<double> v(static_cast<size_t>(m.cols()));
    for (Eigen::Index k = 0; k < m.cols(); ++k)
      v[static_cast<size_t>(k)] = static_cast<double>(m(r, k));
    n[path + "/" + std::to_string(r)] = v;
  }
}

}  // namespace poslab::app
