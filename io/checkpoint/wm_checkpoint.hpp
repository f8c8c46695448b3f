// World-model checkpoints: the model's parameters as safetensors tensors named as in
// docs/world-model.md section 7, optionally the AdamW state for resuming ("optim.m.<name>",
// "optim.v.<name>", "optim.swa.<name>"), and string metadata: format, format_version, config
// (JSON), step, param_count, provenance (datasets, seed, command) and training settings.
// Loading checks the metadata, derives the layout from the config and checks every tensor
// against it; any mismatch is a FileError naming the file and the problem. The model-generic
// half (optimiser tensors, generic keys, checks) is io/checkpoint/model_checkpoint's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/data.hpp"
#include "core/wm/world_model.hpp"
#include "io/checkpoint/model_checkpoint.hpp"
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
// Every check of wm_checkpoint_peek, then the tensors are read; weights that are not finite
// or beyond +-kWmMaxWeight (a diverged or crafted file that would dream nulls) are a
// FileError naming the tensor and the value.
WmCheckpoint wm_checkpoint_load(const std::string& path);
// Format keys and config only (cheap checks for `wm info`).
wm::WmConfig wm_checkpoint_config(const SafetensorsFile& f);

// Largest weight magnitude a checkpoint may hold: trained weights are O(1).
inline constexpr float kWmMaxWeight = 1e6f;

// What a checkpoint is, found without reading its tensors or allocating its model: the
// validated config (within the parameter budget of wm_validate), step, and that every
// tensor the config implies is present with its shape and its bytes inside the file.
// Milliseconds and a few KB for any file; call it before wm_checkpoint_load (the app's
// model picker does, before it spends memory or a worker on a file a link named).
struct WmCheckpointPeek : CheckpointHeader {  // step, param_count, has_optim, has_swa, ...
  wm::WmConfig config;
};
WmCheckpointPeek wm_checkpoint_peek(const std::string& path);
// The same checks on a file already open (header-only or whole).
WmCheckpointPeek wm_checkpoint_inspect(const SafetensorsFile& f);

// The settings a training checkpoint recorded (its "data" and "training" metadata, JSON),
// each checked for its type and range before it is converted: a seed of -1, a batch of
// 1e10 or a val_fraction of 2 is a FileError naming the file and the key.
struct WmRecordedData {
  std::vector<std::string> files;  // dataset paths, in order
  std::optional<uint64_t> seed;
  std::optional<double> val_fraction;  // within WmDataParams::val_fraction_range
};
WmRecordedData wm_recorded_data(const TensorMetadata& meta, const std::string& path);
// Applies the recorded training settings present in `meta` over `dp` and `ap`.
void wm_recorded_training(const TensorMetadata& meta, const std::string& path, wm::WmDataParams& dp,
                          nn::AdamWParams& ap);

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
