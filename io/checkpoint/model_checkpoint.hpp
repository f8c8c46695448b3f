// The model-generic half of a PosLab checkpoint, which the world model's and the language
// models' checkpoints (wm_checkpoint, lm_checkpoint) are declared over: the tensors named by
// the model's tensor table, the AdamW moments beside them ("optim.m.<name>", "optim.v.<name>",
// and "optim.swa.<name>" where the model keeps an SWA average), the metadata every model
// writes (format, format_version, config, step, param_count, optim_step) and every check a
// file must pass before its tensors are read and after (finite, bounded weights).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/nn/adamw.hpp"
#include "core/nn/param_table.hpp"
#include "io/checkpoint/safetensors.hpp"

namespace poslab::io {

// What tells one model's checkpoints from another's.
struct CheckpointFormat {
  const char* format;       // metadata "format", e.g. "poslab-world-model"
  int version;              // metadata "format_version" this PosLab reads and writes
  const char* model;        // for errors: "format is 'x', not <model>"
  const char* old_version;  // for errors: what to do with another version ("retrain it")
  const char* bad_config;   // for errors: prefix of a config the model refuses
  bool swa;                 // the optimiser may hold an SWA average ("optim.swa.*")
  float max_weight;         // largest weight magnitude a checkpoint may hold
};

// The model's tensor table as a safetensors layout (offsets into the parameter allocation).
TensorLayout tensor_layout_of(const nn::ParamLayout& layout);

// Writes atomically: the model's tensors and, with `optim`, its moments (and SWA average),
// under `meta` (the model's own keys and provenance) plus the generic keys written here.
void checkpoint_save(const std::string& path, const CheckpointFormat& fmt,
                     const TensorLayout& model, const std::string& config_json,
                     std::span<const float> params, int64_t step, const nn::AdamWState* optim,
                     TensorMetadata meta);

// The config keys every transformer of PosLab records first, in this order (embed, heads,
// layers, context, position, rope_base); each model adds its own after them.
template <class Json, class Config>
void config_json_common(Json& j, const Config& c, const std::string& position) {
  j["embed"] = c.embed;
  j["heads"] = c.heads;
  j["layers"] = c.layers;
  j["context"] = c.context;
  j["position"] = position;
  j["rope_base"] = c.rope_base;
}

// "format" and "format_version" checked against fmt: FileError naming the file otherwise.
void checkpoint_require_format(const SafetensorsFile& f, const CheckpointFormat& fmt);
// Runs `parse` (a config or another metadata reader), turning its InputError into a FileError
// naming the file and the fmt.bad_config prefix.
template <class Parse>
auto checkpoint_parse_meta(const SafetensorsFile& f, const CheckpointFormat& fmt, Parse parse) {
  try {
    return parse();
  } catch (const FileError&) {
    throw;
  } catch (const Error& e) {
    throw FileError(f.path(), std::string(fmt.bad_config) + e.what());
  }
}

// A metadata whole number: decimal digits only (no sign, space or exponent), at most `max`.
int64_t checkpoint_meta_int(const SafetensorsFile& f, const std::string& key,
                            int64_t max = std::numeric_limits<int64_t>::max());

// The generic header checks, given the layout the file's config implies: step, param_count,
// every tensor's name and shape (nothing else), the optimiser tensors complete and of the
// model's step. Reads no data.
struct CheckpointHeader {
  int64_t step = 0;
  size_t param_count = 0;  // P
  bool has_optim = false;  // the AdamW moments ("optim.m.*", "optim.v.*")
  bool has_swa = false;    // and the SWA average ("optim.swa.*")
  uint64_t file_bytes = 0;
  TensorMetadata metadata;
};
CheckpointHeader checkpoint_inspect(const SafetensorsFile& f, const CheckpointFormat& fmt,
                                    const TensorLayout& model, size_t param_count);

// The tensors of a file checkpoint_inspect passed: weights finite and within fmt.max_weight,
// moments finite (v never negative), the SWA average like the weights. FileError naming the
// tensor and the value otherwise.
struct CheckpointTensors {
  std::vector<float> params;            // (P) in the tensor table's order
  std::optional<nn::AdamWState> optim;  // when the file holds the moments
};
CheckpointTensors checkpoint_read_tensors(const SafetensorsFile& f, const CheckpointFormat& fmt,
                                          const TensorLayout& model, const CheckpointHeader& h);

}  // namespace poslab::io
