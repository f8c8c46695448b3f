// The length lab's inputs from disk and its numbers as JSON, for both faces: the shipped
// models (assets/models/lm_<name>.safetensors through io/checkpoint's loader) with the
// held-out text of their split (the fortune files their metadata records, or the held-out
// file made from them and shipped beside them where they are not installed), and the result
// as the JSON `poslab-cli length` prints and the panel's "Export numbers" writes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/lm/length_lab.hpp"
#include "io/checkpoint/safetensors.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::io {

// models_dir()/lm_<name>.safetensors
std::string length_model_path(lm::LengthModelId id);
// Where the user's own models are: <user data folder>/models (io/files/user_dirs).
std::string length_own_models_dir();
// One of the user's own models (lm_own_*.safetensors): FileError naming it when damaged.
lm::LengthLabModel length_own_model_load(const std::string& path);
// Every shipped model that exists (a damaged one is a FileError naming it), the user's own
// models (lm_own_*.safetensors in length_own_models_dir(); a damaged one, one recording
// others' text files and one the lab cannot measure within its budget are skipped and listed
// in own_skipped) and the validation text of the first one's recorded split. Throws
// FileError when no model exists or the text cannot be read, saying what to install or train.
lm::LengthLabData length_lab_load();
// The weights of the user's own models the lab holds together: a model past it is listed in
// own_skipped (a folder of many large models cannot take the machine).
inline constexpr int64_t kLengthOwnMaxBytes = int64_t{256} << 20;
// Every file length_lab_load may read from the models folder: the shipped models, then the
// held-out file (the browser build fetches them into the page's memory before the load).
std::vector<std::string> length_lab_files();

// ---- The held-out text where the fortune files are not installed --------------------
// (an installed copy without Debian's fortune packages, the browser)
// A held-out file: the validation text of one split, with the split it was made from:
//   "poslab-held-out 1\n" {"files": [paths], "valid_every": k, "bytes": N} "\n" N bytes
// The split itself is made in one place only (lm_corpus_build on the recorded files); the
// file is that result written once (tests/lm/make_held_out.cpp) and shipped beside the models
// (assets/models/lm_held_out.txt, lm_held_out_path()).
inline constexpr const char* kLengthHeldOutMagic = "poslab-held-out";
inline constexpr int kLengthHeldOutVersion = 1;
// models_dir()/lm_held_out.txt
std::string length_held_out_path();
// The held-out text of the split `model_meta` records (a checkpoint's "data" metadata;
// the default fortune files and split when it records none): read from those files, or,
// when one of them is missing, from the held-out file `saved` if it exists and was made from
// the same files and split (else a FileError naming it and what to do). The fortune files
// missing and no held-out file: a FileError naming the held-out file (reinstall PosLab) for
// the shipped models' text, else lm_read_text_files' FileError naming the missing file.
// A record naming files that are not PosLab's own is a FileError naming `model` (the file
// the metadata came from) and saying `what_to_do` (default: the length lab's words): a
// checkpoint never chooses what PosLab reads.
std::vector<uint8_t> length_held_out_text(const TensorMetadata& model_meta,
                                          const std::string& saved,
                                          const std::string& model = "the model",
                                          const std::string& what_to_do = "");
// Writes the held-out file of `model`'s recorded split, read from the fortune files, to
// `out` (atomically). Throws FileError.
void length_held_out_save(const std::string& model, const std::string& out);

// One shipped model and, when `valid` is given, the held-out text of its recorded split
// (length_held_out_text; the attention lab's trained source loads one model, not all). A missing
// file is a FileError naming it and saying how to get it; a damaged one is lm_checkpoint_load's
// FileError.
lm::LengthLabModel length_model_load(lm::LengthModelId id, std::vector<uint8_t>* valid);

// The lab's numbers: preset, positions, L, one entry per curve (model, scaling, factor,
// mean bits/byte, the loss at L/2, L, 2L, 4L and 8L, the averaged and the one-window curve),
// the missing models, the text view (bytes, bits, top predictions), the heads view and the
// own models not read (LengthLabData::own_skipped), each with its reason.
Json length_lab_json(const lm::LengthLabResult& r, const std::vector<std::string>& own_skipped);
// "rope", "rope yarn x4", "yours rope_L128_seed1 @1200 yarn x4": the legend text of a curve.
std::string length_curve_label(const lm::LengthCurve& c);

}  // namespace poslab::io
