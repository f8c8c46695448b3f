// A KV-cached forward of the length lab's byte-level language model (core/lm/lm.hpp) for the
// KV lab's trained source (issue 39): every block's keys and values as the model computes
// them, kept per slot with the position each key is encoded at, so caches of separate runs
// can be concatenated, selected, re-encoded and rolled, and new bytes appended to them.
// Same math as LmModelT::forward (lm.hpp), one query row at a time over the slots.
//
// Legend: n = slots in the cache, E = width, H = heads, D = E/H, N = blocks.
#pragma once
#include <cstdint>
#include <vector>

#include "core/lm/lm.hpp"

namespace poslab::lm {

// Slot j of the cache holds, for every block l, the key and value the block computed for
// one byte (k[l], v[l] rows j; RoPE keys rotated by key_pos[j]) and the block's output there
// (h[l] row j, for comparing hidden states). key_pos[j] is the position the key is encoded at
// (RoPE: its rotation; ALiBi/T5: the position the bias reads); own_pos[j] is where the byte
// was computed in its own run (what re-encoding starts from).
struct LmKvCache {
  int embed = 0;                          // E
  std::vector<std::vector<float>> k, v;   // N of (n, E)
  std::vector<std::vector<float>> h;      // N of (n, E): block outputs
  std::vector<int64_t> key_pos, own_pos;  // (n)
  int64_t size() const { return static_cast<int64_t>(key_pos.size()); }
};

LmKvCache lm_cache_empty(const LmConfig& c);

// Appends n bytes x at positions pos (query positions; the new slots get key_pos = own_pos =
// pos). Byte t attends to every slot already in the cache and to new bytes 0..t. When
// targets is not null, nats[t] = -ln p(targets[t] | ...) after byte t. The model's scaling
// (set_scaling) is used for RoPE. Positions must be >= 0.
void lm_cache_append(const LmModel& m, LmKvCache& c, const uint8_t* x, const int64_t* pos, int n,
                     const uint8_t* targets, float* nats);

// [a; b]: the slots of a, then those of b, each keeping its key_pos and own_pos.
LmKvCache lm_cache_concat(const LmKvCache& a, const LmKvCache& b);
// The slots listed (in that order).
LmKvCache lm_cache_select(const LmKvCache& c, const std::vector<int64_t>& slots);
// Drops slot j.
void lm_cache_erase(LmKvCache& c, int64_t j);

// Whether re-encoding a cached key to a new position is possible for this encoding: RoPE
// (a rotation), ALiBi and T5 (keys carry no position; the bias reads key_pos) and NoPE
// (nothing to change). Learned and sinusoidal positions are added to the residual stream at
// block 0 and mixed into every key: no operation on the key moves them.
bool lm_cache_reencode_applies(LmPosition p);
// Re-encodes every key to new_pos (n): RoPE rotates each key by -angle(key_pos) then
// +angle(new_pos) (the scaling's own tables; its attention scale stays in the key);
// every encoding then sets key_pos = new_pos. InputError where it does not apply.
void lm_cache_reencode(const LmModel& m, LmKvCache& c, const std::vector<int64_t>& new_pos);

}  // namespace poslab::lm
