// The dream lab's session from its preset, for both faces: the start state (a seed, or an
// episode of an HDF5 dataset read in the helper process), the checkpoint it dreams with,
// and its numbers as the JSON `poslab-cli wm dream --preset` prints and the panel's
// "Export numbers" writes (the same function lays out both, so they agree by construction).
// Also every other dream's JSON: `wm dream MODEL` and `wm eval` (the error summaries and
// per-horizon curves; the states from the start on share the lab's writer).
#pragma once
#include <memory>
#include <span>
#include <string>

#include "core/wm/dream_lab.hpp"
#include "core/wm/eval.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::io {

// The checkpoint path of the lab's settings (s.model, or the shipped one for s.window).
std::string dreams_model_path(const wm::DreamLabSettings& s);
// Reads the checkpoint and wraps it for dreaming in the settings' window mode (KV-cache
// decoder). Throws poslab::Error naming the file.
std::unique_ptr<wm::DreamModel> dreams_load_model(const std::string& path, wm::DreamVariant w);
// The session configuration: from the seed, or (start = file) from episode
// min(s.episode, episodes - 1) of s.file, read in a helper process. Throws poslab::Error.
wm::DreamSessionConfig dreams_session_config(const wm::DreamLabSettings& s);

// What one dream lab session shows, as JSON: the preset, checkpoint and model, the dream's
// start and length, the per-horizon error curves of the dream and both baselines
// (dreams_lab_json's "curves"), the helm's actions, and the real and dreamt states from the
// start on, (steps + 1, 8, 15) each. `model` may be null (no dream: baselines only).
Json dreams_session_json(const std::string& preset, const std::string& checkpoint,
                         const wm::DreamModel* model, const wm::DreamTimeline& timeline, int helm);

// ---- Every dream's JSON ------------------------------------------------------------------
// A dream's states from its start on: `states` is (rows, 8, 15) flat, written as rows of
// 8 arrays of 15 numbers (the lab's "real" / "dreamt" and `wm dream`'s alike).
Json dream_states_json(std::span<const float> states);
// Means of one horizon: {"pos_px", "vel_px_s", "att_deg", "health", "power", "alive_agree",
// "ships"}.
Json dream_error_json(const wm::ErrorSummary& s);
// The same keys, each an array over horizons k = 1..K.
Json dream_curves_json(const wm::ErrorAccumulator& a, int K);
// Many dreams merged (`wm eval`): counts, loop and window, the three curves, pos_px at the
// printed horizons, and whether the model beat constant velocity at every step.
Json dream_summary_json(const wm::DreamSummary& s, const wm::DreamParams& p);
// One dream (`wm dream MODEL`): `head` (checkpoint, source, ...) then start, steps, loop,
// window, temperature, the three curves, dreamt and real states and the actions taken.
Json dream_result_json(Json head, const wm::DreamResult& r, const std::string& loop,
                       const std::string& window, double temperature);

}  // namespace poslab::io
