// Every refusal and validation message the KV lab's core writes for a reader, as message
// ids with English templates (core/common/message.hpp). kv_lab.cpp, kv_model.cpp and
// kv_session.cpp throw or return them; the app shows them through assets/i18n/<lang>/kv.toml,
// [kv.message], whose English equals these templates (tests/app/messages_test.cpp).
#pragma once
#include <string>
#include <vector>

#include "core/common/message.hpp"

namespace poslab {

inline constexpr MessageTemplate kKvMessages[] = {
    // kv_lab_validate: rules across fields.
    {"kv.message.view_layer", "view_layer = {layer} but the model has {layers} layers (0..{last})"},
    {"kv.message.view_head", "view_head = {head} but the model has {heads} heads"},
    {"kv.message.view_pair", "view_pair = {pair} but a head has {pairs} RoPE pairs"},
    {"kv.message.scenario_needs_rope",
     "scenario {scenario} needs positions = rope: stitching re-rotates keys, learned positions "
     "have no rotation to undo"},
    {"kv.message.method_not_for_scenario",
     "method {method} does not apply to scenario {scenario} with {positions} positions; choose "
     "one of {methods}"},
    {"kv.message.drop_empties_window",
     "drop_steps = {drop} would empty the window of {window} steps (context = {context} tokens); "
     "drop fewer steps"},
    {"kv.message.rag_outside_b",
     "rag retrieves B indices {from}..{last} but B has only {length} tokens; lower retrieved, "
     "retrieve_from or retrieve_stride"},
    // kv_session_append_refusal: why "Append step" is disabled.
    {"kv.message.append_window_full",
     "append: the window already holds {n} of C = {context} tokens and learned positions have no "
     "row past C - 1; slide the window instead"},
    // kv_model_validate: rules a preset can break.
    {"kv.message.width_heads",
     "width = {width}, heads = {heads}: width must split into heads of even size (RoPE rotates "
     "pairs)"},
    {"kv.message.context_even",
     "context = {context}: must be even (each episode step is a state and an action token)"},
    // kv_session_slide / kv_session_stitch / kv_session_method: a step the session cannot take
    // (they run in the panel's background job, which hands the message to the panel).
    {"kv.message.slide_not_sliding",
     "slide: only the sliding scenario has a window (this is {scenario})"},
    {"kv.message.slide_too_few", "slide: the window holds {n} tokens, too few to drop {drop}"},
    {"kv.message.method_not_sliding", "method {method} does not apply to a sliding window"},
    {"kv.message.stitch_not_sliding", "stitch: choose scenario stitch or rag first"},
    {"kv.message.stitch_done", "stitch: the caches are already stitched; restart to stitch again"},
    {"kv.message.method_not_stitching", "method {method} does not apply to stitching"},
    {"kv.message.method_not_run", "method {method} is not run in scenario {scenario}"},
    {"kv.message.pair_range", "pair {pair}: a head has {pairs} RoPE pairs"},
};

// Catalog entry `id` with its arguments: what the KV core throws in an InputError.
inline Message kv_message(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kKvMessages, id, std::move(args));
}

// Every id the KV core can emit.
inline std::vector<std::string> kv_message_ids() {
  return message_ids(kKvMessages);
}

}  // namespace poslab
