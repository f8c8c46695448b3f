// The dream lab's session from its preset, for both faces: the start state (a seed, or an
// episode of an HDF5 dataset read in the helper process), the checkpoint it dreams with,
// and its numbers as the JSON `poslab-cli wm dream --preset` prints and the panel's
// "Export numbers" writes (the same function lays out both, so they agree by construction).
// Also every other dream's JSON, one schema for all: `wm dream MODEL` and `wm eval`'s merged
// dreams write the same error records, curves and states as the lab.
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

// What one dream lab session shows, as JSON: the lab, preset, checkpoint and model, whether
// it finished, the helm and its actions, then the dream as every dream's JSON (below).
// `model` may be null (no dream: baselines only).
Json dreams_session_json(const std::string& preset, const std::string& checkpoint,
                         const wm::DreamModel* model, const wm::DreamTimeline& timeline, int helm);

// ---- Every dream's JSON ------------------------------------------------------------------
// One schema for every dream (the lab's session, `wm dream MODEL`) and for the dreams
// `wm eval` merges. The error record (core/wm/baselines.hpp ErrorSummary) is
//   {"pos_px", "vel_px_s", "att_deg", "health", "power", "ships", "present", "agree",
//    "alive_agree"}:
// means over the "ships" alive in reality, and of the "present" ships the "agree" ones whose
// alive flag the prediction got right ("alive_agree" = agree / present). The curves are
//   "curves": {"dream": [record at h = 1, 2, ...], "copy_last": [...], "const_velocity": [...]}
// (the dream, or the merged dreams, and the two baselines), and a dream is "start" (agent
// step it starts from), "steps" (dream steps), "curves", then the "real" and "dreamt" states
// from the start on, (steps + 1) rows of 8 arrays of 15 numbers each.
Json dream_error_json(const wm::ErrorSummary& e);
Json dream_curves_json(const wm::DreamCurves& c);
// The curves of accumulated errors at horizons 1..K (wm_dream's and wm_dream_many's).
wm::DreamCurves dream_curves_of(const wm::ErrorAccumulator& model,
                                const wm::ErrorAccumulator& copy_last,
                                const wm::ErrorAccumulator& const_velocity, int K);
// A dream's states from its start on: `states` is (rows, 8, 15) flat.
Json dream_states_json(std::span<const float> states);
// Adds the dream's fields to `out`: start, steps (= the curves' length), curves, real and
// dreamt ((steps + 1, 8, 15) flat each).
void dream_json(Json& out, int start, const wm::DreamCurves& curves, std::span<const float> real,
                std::span<const float> dreamt);
// Many dreams merged (`wm eval`): counts, loop and window, the curves, pos_px of each curve
// at the printed horizons, and whether the model beat constant velocity at every step.
Json dream_summary_json(const wm::DreamSummary& s, const wm::DreamParams& p);
// One dream (`wm dream MODEL`): `head` (checkpoint, source, ...), loop, window and
// temperature, the dream (dream_json) and the actions taken, (steps, 8, 3).
Json dream_result_json(Json head, const wm::DreamResult& r, const std::string& loop,
                       const std::string& window, double temperature);

}  // namespace poslab::io
