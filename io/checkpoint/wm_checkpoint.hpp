// World-model checkpoints: the model's parameters as safetensors tensors named as in
// docs/world-model.md section 7, optionally the AdamW state for resuming ("optim.m.<name>",
// "optim.v.<name>", "optim.swa.<name>"), and string metadata: format, format_version, config
// (JSON), step, param_count, provenance (datasets, seed, command) and training settings.
// Loading checks the metadata, derives the layout from the config and checks every tensor
// against it; any mismatch is a FileError naming the file and the problem.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/world_model.hpp"
#include "io/checkpoint/safetensors.hpp"

namespace poslab::io {

inline constexpr const char* kWmCheckpointFormat = "poslab-world-model";
inline constexpr int kWmCheckpointVersion = 1;

// The config as a compact JSON object string and back (InputError naming a bad field).
std::string wm_config_to_json(const wm::WmConfig& c);
wm::WmConfig wm_config_from_json(const std::string& text);

// The model's tensors as a safetensors layout (offsets into the parameter allocation).
TensorLayout wm_tensor_layout(const wm::WmConfig& c);

struct WmCheckpoint {
  wm::WmConfig config;
  int64_t step = 0;                     // optimiser steps the weights have seen
  std::vector<float> params;            // (P) in wm_param_layout order
  std::optional<nn::AdamWState> optim;  // present if the file holds the optimiser state
  TensorMetadata metadata;              // everything in __metadata__
};

// Writes atomically. `extra` adds metadata keys (provenance, settings); the format keys,
// config, step and param_count are always written by this function.
void wm_checkpoint_save(const std::string& path, const wm::WmConfig& c,
                        std::span<const float> params, int64_t step, const nn::AdamWState* optim,
                        const TensorMetadata& extra);
WmCheckpoint wm_checkpoint_load(const std::string& path);
// Format keys and config only (cheap checks for `wm info`).
wm::WmConfig wm_checkpoint_config(const SafetensorsFile& f);

// Reads every episode of every dataset file (io/dataset), in file then episode order.
// `sources` gets one entry per file: path and episode count.
struct EpisodeSource {
  std::string path;
  int64_t episodes = 0;
  int64_t first = 0;  // index of its first episode in the returned list
};
std::vector<bnb::EpisodeRecord> wm_load_episodes(const std::vector<std::string>& paths,
                                                 std::vector<EpisodeSource>* sources = nullptr);

}  // namespace poslab::io
