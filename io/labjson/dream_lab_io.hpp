// The dream lab's session from its preset, for both faces: the start state (a seed, or an
// episode of an HDF5 dataset read in the helper process), the checkpoint it dreams with,
// and its numbers as the JSON `poslab-cli wm dream --preset` prints and the panel's
// "Export numbers" writes (the same function lays out both, so they agree by construction).
#pragma once
#include <memory>
#include <string>

#include "core/wm/dream_lab.hpp"
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

}  // namespace poslab::io
