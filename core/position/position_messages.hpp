// The input errors of the position encodings (core/position/encodings.cpp) as message ids
// with English templates (core/common/message.hpp). The ids keep the attention lab's prefix:
// the app shows them through assets/i18n/<lang>/attention.toml's [attention.error], and
// attention_message_ids() lists them with the lab's own.
#pragma once
#include <string_view>
#include <vector>

#include "core/common/message.hpp"

namespace poslab {

inline constexpr MessageTemplate kPositionMessages[] = {
    {"attention.error.sinusoidal_dim", "sinusoidal: model dim = {dim}: must be even and >= 2"},
    {"attention.error.sincos_2d_dim", "2-D sin-cos: model dim = {dim}: must be a multiple of 4"},
    {"attention.error.alibi_heads", "ALiBi: heads = {heads}: must be >= 1"},
    {"attention.error.t5_buckets", "T5: num_buckets = {buckets}: must be even and >= 2"},
    {"attention.error.t5_buckets_bidirectional",
     "T5: num_buckets = {buckets}: must be even and >= 4 when bidirectional"},
    {"attention.error.t5_max_distance",
     "T5: max_distance = {max_distance}: must exceed max_exact = {max_exact} (half the buckets of "
     "one side)"},
    {"attention.error.swin_offset",
     "Swin bias: offset ({dh}, {dw}) does not fit a {h} x {w} window"},
};

// Catalog entry `id` with its arguments: what the position encodings throw in an InputError.
inline Message position_message(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kPositionMessages, id, std::move(args));
}

}  // namespace poslab
