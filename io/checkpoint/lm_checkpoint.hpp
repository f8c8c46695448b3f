// Language-model checkpoints (issue 27): the model's tensors in safetensors named as in
// core/lm/lm.hpp, optionally the AdamW moments for resuming ("optim.m.<name>",
// "optim.v.<name>"), and string metadata: format, format_version, config (JSON), step,
// param_count, scaling (the RoPE scaling a fine-tuned model was tuned with, JSON), and
// provenance written by the CLI (data: files, packages and versions, split; training;
// command). Every field is checked on load; a damaged or hostile file is one FileError. The
// model-generic half (optimiser tensors, generic keys, checks) is io/checkpoint/model_checkpoint's.
// Also here: the default training text (Debian's fortune files) and reading it.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/lm/lm.hpp"
#include "core/lm/lm_data.hpp"
#include "core/nn/adamw.hpp"
#include "io/checkpoint/safetensors.hpp"

namespace poslab::io {

inline constexpr const char* kLmCheckpointFormat = "poslab-byte-lm";
inline constexpr int kLmCheckpointVersion = 1;
// Largest weight magnitude a checkpoint may hold: trained weights are O(1).
inline constexpr float kLmMaxWeight = 1e6f;

std::string lm_config_to_json(const lm::LmConfig& c);
lm::LmConfig lm_config_from_json(const std::string& text);  // InputError naming the field
std::string lm_scaling_to_json(const lm::LmScaling& s);     // {"scaling":"yarn","factor":4}
lm::LmScaling lm_scaling_from_json(const std::string& text);
TensorLayout lm_tensor_layout(const lm::LmConfig& c);

struct LmCheckpoint {
  lm::LmConfig config;
  int64_t step = 0;
  lm::LmScaling scaling;                // recorded tuning scaling (none for a base model)
  std::vector<float> params;            // (P) in lm_param_layout order
  std::optional<nn::AdamWState> optim;  // present when the file holds the moments
  TensorMetadata metadata;
};

// Writes atomically; the format keys, config, step, param_count and scaling are always
// written by this function, `extra` adds the rest.
void lm_checkpoint_save(const std::string& path, const lm::LmConfig& c,
                        std::span<const float> params, int64_t step, const lm::LmScaling& scaling,
                        const nn::AdamWState* optim, const TensorMetadata& extra);
// Header checks (format, version, config within budget, every tensor's name and shape),
// then the data; non-finite or huge weights are a FileError naming the tensor.
LmCheckpoint lm_checkpoint_load(const std::string& path);
// The config of a checkpoint from its header alone (every header check of the load).
lm::LmConfig lm_checkpoint_peek_config(const std::string& path);
LmCheckpoint lm_checkpoint_parse(std::string bytes, const std::string& path);  // for fuzzing

// ---- Training text ------------------------------------------------------------------
// The shipped models' text: English fortune files (fortunes, fortunes-min) and the Tang and
// Song poems of fortunes-zh, in this order, in /usr/share/games/fortunes (or the folder
// POSLAB_FORTUNES_DIR names). These are PosLab's own data files: the only ones a checkpoint's
// record may make it read.
std::vector<std::string> lm_default_text_paths();
// The text files and split a checkpoint's "data" metadata records (what lm train writes):
// `files` empty when it records none or the record cannot be read (a model trained by an
// older command; `problem` then says which), `split` the recorded valid_every when it is in
// range, else the default. A record only SAYS what a model was trained on: what is read is
// decided by the user (--text, a choice in the panel) or is one of PosLab's own data files.
struct LmRecordedText {
  std::vector<std::string> files;
  lm::LmCorpusParams split;
  std::string problem;  // why no files were taken from the record ("" when they were)
};
LmRecordedText lm_recorded_text(const TensorMetadata& meta);
// Whether `path` is one of PosLab's own data files (lm_default_text_paths).
bool lm_known_text_path(const std::string& path);
// lm_recorded_text, refusing a record that names any file that is not PosLab's own (or names
// one twice): a FileError naming `checkpoint` and the file (quoted) and saying to give the
// text with `what_to_do`.
LmRecordedText lm_recorded_text_checked(const TensorMetadata& meta, const std::string& checkpoint,
                                        const std::string& what_to_do);
// Bytes all the text files of one run may hold together (each file is checked before it is read).
inline constexpr int64_t kLmTextMaxBytes = int64_t{64} << 20;
// A source file with the Debian package that owns it and its version ("" when dpkg does
// not know the file).
struct LmTextSource {
  std::string path;
  std::string package;
  std::string version;
};
// Reads the files (at most kLmTextMaxBytes together, checked before reading; a missing one is
// a FileError saying which package to install) and asks dpkg-query for their packages and versions.
std::vector<lm::LmTextFile> lm_read_text_files(const std::vector<std::string>& paths,
                                               std::vector<LmTextSource>* sources);

}  // namespace poslab::io
