// The length lab's inputs from disk and its numbers as JSON, for both faces: the shipped
// models (assets/models/lm_<name>.safetensors through io/checkpoint's loader) with the
// held-out text of their split (the fortune files their metadata records), and the result
// as the JSON `poslab-cli length` prints and the panel's "Export numbers" writes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/lm/length_lab.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::io {

// models_dir()/lm_<name>.safetensors
std::string length_model_path(lm::LengthModelId id);
// Every shipped model that exists (a damaged one is a FileError naming it) and the
// validation text of the first one's recorded split. Throws FileError when no model exists
// or the text cannot be read, saying what to install or train.
lm::LengthLabData length_lab_load();

// One shipped model and, when `valid` is given, the held-out text of its recorded split (the
// attention lab's trained source loads one model, not all). A missing file is a FileError
// naming it and saying how to get it; a damaged one is lm_checkpoint_load's FileError.
lm::LengthLabModel length_model_load(lm::LengthModelId id, std::vector<uint8_t>* valid);

// The lab's numbers: preset, positions, L, one entry per curve (model, scaling, factor,
// mean bits/byte, the loss at L/2, L, 2L, 4L and 8L, the averaged and the one-window curve),
// the missing models, the text view (bytes, bits, top predictions) and the heads view.
Json length_lab_json(const lm::LengthLabResult& r);
// "rope", "rope yarn x4", "rope_ft_pi (linear x4)": the legend text of a curve.
std::string length_curve_label(const lm::LengthCurve& c);

}  // namespace poslab::io
