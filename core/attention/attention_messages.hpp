// Every note and input error the attention lab's core writes for a reader, as message ids
// with English templates (core/common/message.hpp). demos.cpp, attention.cpp,
// attention_lab.cpp and tokenizer.cpp build their notes and errors from this catalog (the
// encodings' errors: core/position/position_messages.hpp); the app shows them through
// assets/i18n/<lang>/attention.toml, [attention.note] and [attention.error], whose English equals
// these templates (tests/app/messages_test.cpp).
#pragma once
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/common/message.hpp"
#include "core/position/position_messages.hpp"

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

    // Errors on bad input (InputError): what the lab's settings, a preset, a typed sentence or
    // a second sentence for the orderings comparison can get wrong.
    {"attention.error.model_dim_even", "model_dim = {dim}: must be even (sin/cos pairs)"},
    {"attention.error.model_dim_sincos_2d",
     "model_dim = {dim}: 2-D sin-cos needs a multiple of 4 (half per axis, sin and cos)"},
    {"attention.error.head_dim_even", "head_dim = {dim}: must be even (RoPE rotates pairs)"},
    {"attention.error.tokens_range", "tokens = {count}: must be in [1, {max}]"},
    {"attention.error.grid_range", "grid {rows} x {cols}: needs 1 to {max} patches"},
    {"attention.error.grid_too_many", "grid {rows} x {cols} = {count} patches: at most {max}"},
    {"attention.error.head_range", "head = {head}: must be in [0, heads - 1 = {last}]"},
    {"attention.error.head_below", "head = {head}: must be below heads = {heads}"},
    {"attention.error.query_outside",
     "query patch ({row}, {col}) is outside the {rows} x {cols} grid"},
    {"attention.error.cell_outside",
     "cell (head {head}, query {query}, key {key}) is outside the {heads} heads x {T} x {T} "
     "scores"},
    {"attention.error.reorder_count", "reorder: {indices} indices for {tokens} tokens"},
    {"attention.error.reorder_not_permutation",
     "reorder: index list is not a permutation (entry {entry} = {value})"},
    {"attention.error.no_tokens", "no tokens: give a sentence or a token count of at least 1"},
    {"attention.error.too_many_tokens",
     "tokens = {count}: at most {max} (the score matrix has tokens^2 cells per head)"},
    {"attention.error.input_shape",
     "attention input: positions, coordinates and cells must have one entry per token"},
    {"attention.error.input_not_finite",
     "attention input: token {token} has a non-finite position"},
    {"attention.error.input_outside_grid",
     "attention input: token {token} sits outside the {rows} x {cols} grid"},
    {"attention.error.compare_shapes",
     "compare: both sides need the same token count and heads ({tokens_a} vs {tokens_b} tokens, "
     "{heads_a} vs {heads_b} heads)"},
    {"attention.error.orderings_count",
     "orderings: the two sentences have {a} and {b} tokens; give the same tokens in another "
     "order"},
    {"attention.error.orderings_missing",
     "orderings: token \"{token}\" of the first sentence is missing from the second (use the same "
     "tokens reordered)"},
    {"attention.error.trained_missing",
     "weights = trained: no model was loaded (the caller must load one through io)"},
    {"attention.error.trained_grid",
     "weights = trained: the trained models read bytes of text; choose source = sentence or "
     "count (held-out text), not grid"},
    {"attention.error.trained_demo",
     "weights = trained: the {demo} demo runs on random weights; set weights = random (the "
     "trained source runs the extrapolation and decay demos)"},
    {"attention.error.trained_text_short",
     "weights = trained: the held-out text has {bytes} bytes, fewer than the {n} asked for; "
     "choose fewer bytes"},
    {"attention.error.decay_args",
     "RoPE decay: need max_distance >= 1 and points >= 2 (got {max_distance}, {points})"},
    // A typed or loaded sentence ({why}: one of the utf8_* reasons below).
    {"attention.error.sentence_utf8",
     "sentence: invalid UTF-8 at byte {byte} ({why}; save or paste the text as UTF-8)"},
    {"attention.error.utf8_overlong", "overlong form"},
    {"attention.error.utf8_past_max", "past U+10FFFF"},
    {"attention.error.utf8_stray", "stray continuation byte"},
    {"attention.error.utf8_truncated", "truncated character"},
    {"attention.error.utf8_continuation", "missing continuation byte"},
    {"attention.error.utf8_surrogate", "surrogate"},
    {"attention.error.sentence_too_long",
     "sentence has more than {max} tokens: shorten it (at most {max})"},
    {"attention.error.sentence_empty", "sentence is empty: type some words, e.g. \"我 喜欢 你\""},
};

// Catalog entry `id` with its arguments: what the attention core throws in an InputError.
inline Message attention_message(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kAttentionMessages, id, std::move(args));
}

// An encoding's label as a message ("attention.enc.<name>", English: attention_encoding_label).
Message attention_encoding_message(AttentionEncoding e);

// Every id the attention core can emit: the catalog, the position encodings' errors
// (core/position) and the encodings' labels.
inline std::vector<std::string> attention_message_ids() {
  std::vector<std::string> ids = message_ids(kAttentionMessages);
  for (const auto& id : message_ids(kPositionMessages)) ids.push_back(id);
  for (const auto& n : attention_encoding_names()) ids.push_back("attention.enc." + n);
  return ids;
}

}  // namespace poslab
