// The validation messages the RoPE core (rope_validate, core/rope/rope.cpp) writes for a
// reader, as message ids with English templates (core/common/message.hpp). A rope?...
// preset, poslab-cli rope and the Rotary wheels' controls reach them; the app shows them
// through assets/i18n/<lang>/wheels.toml, [wheels.message], whose English equals these
// templates (tests/app/messages_test.cpp). Field ranges are checked by require_in_range
// (core/common/preset_messages.hpp) and need no entry here.
#pragma once
#include <string>
#include <vector>

#include "core/common/message.hpp"

namespace poslab {

inline constexpr MessageTemplate kRopeMessages[] = {
    {"wheels.message.head_dim_odd", "head_dim = {dim}: must be even (dims rotate in pairs)"},
    {"wheels.message.yarn_beta_order",
     "yarn_beta_fast = {fast} must be greater than yarn_beta_slow = {slow}"},
    {"wheels.message.llama3_factor_order",
     "llama3_high_freq_factor must be greater than llama3_low_freq_factor"},
};

// Catalog entry `id` with its arguments: what rope_validate throws in an InputError.
inline Message rope_message(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kRopeMessages, id, std::move(args));
}

// Every id the RoPE core can emit.
inline std::vector<std::string> rope_message_ids() {
  return message_ids(kRopeMessages);
}

}  // namespace poslab
