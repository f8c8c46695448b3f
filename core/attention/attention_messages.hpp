// Every note the attention lab's core writes for a reader, as message ids with English
// templates (core/common/message.hpp). demos.cpp and attention.cpp build their notes from
// this catalog; the app shows them through assets/i18n/<lang>/attention.toml, [attention.note],
// whose English equals these templates (tests/app/messages_test.cpp).
#pragma once
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/common/message.hpp"

namespace poslab {

inline constexpr MessageTemplate kAttentionMessages[] = {
    // attention_compare: the maxima over comparable cells.
    {"attention.note.compare",
     "max |score difference| = {score}, max |weight difference| = {weight}"},
    {"attention.note.compare_skipped",
     "max |score difference| = {score}, max |weight difference| = {weight} ({cells} masked or "
     "undefined cells skipped)"},
    // The demos prefix the comparison ({diff}) with what was compared.
    {"attention.note.encodings", "{other} minus {encoding}: {diff}"},
    {"attention.note.orderings",
     "second ordering, rows/columns matched by token, minus first: {diff}"},
    {"attention.note.permutation_invariant",
     "no position information: permuting the tokens only permutes the matrix. {diff}"},
    {"attention.note.permutation_positions",
     "with positions (or a causal mask) the permuted sentence scores differently. {diff}"},
    {"attention.note.shift", "shift every position by {k}: {why}{diff}"},
    {"attention.note.shift_unused", "positions are not used, so a shift cannot change anything. "},
    {"attention.note.shift_mixed",
     "the mixed-layout bug: the pairs turn by unequal angles, which is no rotation, so the logits "
     "depend on absolute positions and the shift changes them. "},
    {"attention.note.shift_relative",
     "relative: logits depend only on position differences, so the shift cancels. "},
    {"attention.note.shift_elevation",
     "the elevation bias reads the terrain, not positions: the shift moves no mountain. "},
    {"attention.note.shift_absolute",
     "absolute: every token gets a different vector after the shift, so the logits change. "},
    // attention_extrapolation_demo: what the encoding does past the trained length L.
    {"attention.note.extrapolation_learned",
     "learned table: positions {L} and beyond have no row, so the model has no input there. "
     "{missing}"},
    {"attention.note.extrapolation_sinusoidal",
     "sinusoids continue past {L}, but those vectors were never seen in training: the formula "
     "extends, the learned weights need not."},
    {"attention.note.extrapolation_rope",
     "RoPE angles continue past {L}; slow pairs reach angles never seen in training, which is why "
     "PI / NTK / YaRN exist (plain RoPE does not extrapolate well)."},
    {"attention.note.extrapolation_alibi",
     "ALiBi's penalty keeps growing linearly with distance past {L}: far keys fade smoothly."},
    {"attention.note.extrapolation_t5",
     "T5: every distance beyond max_distance = {max_distance} shares the last bucket, so far keys "
     "look alike."},
    {"attention.note.extrapolation_other", "{encoding}: nothing special happens at {L}."},
    // attention_compute: tokens whose position has no learned row.
    {"attention.note.missing_rows",
     "{count} token(s) at positions {lo}..{hi} have no row in the learned table (rows 0..{last}): "
     "their scores and weights are undefined (NaN), not invented; the other queries attend over "
     "the defined keys only"},
};

// An encoding's label as a message ("attention.enc.<name>", English: attention_encoding_label).
Message attention_encoding_message(AttentionEncoding e);

// Every id the attention core can emit: the catalog and the encodings' labels.
inline std::vector<std::string> attention_message_ids() {
  std::vector<std::string> ids;
  for (const auto& t : kAttentionMessages) ids.emplace_back(t.id);
  for (const auto& n : attention_encoding_names()) ids.push_back("attention.enc." + n);
  return ids;
}

}  // namespace poslab
