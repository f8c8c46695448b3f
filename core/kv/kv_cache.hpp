// The KV cache as a plain struct with named operations: append (done by the cached
// forward pass), drop the oldest slots, reset indices, and the index corrections the lab
// compares: UniZero's legacy learned-position correction, the RoPE K-shift (one rotation
// by new - old), the two-step inverse-then-forward re-encode of the stitching seed (with
// or without the YaRN temperature in its tables), stitching and retrieving slots.
//
// Shapes: S = slots (oldest first), W = model width, H = heads, D = W/H.
// keys and values are (S, W): head h owns columns h*D .. h*D + D - 1.
#pragma once
#include <string>
#include <vector>

#include "core/kv/kv_model.hpp"

namespace poslab {

// What the lab knows about one cached token. Three indices, because they differ after
// slides and stitches and the differences are the whole point:
//   computed_at  index the model was given when this slot's K/V were computed,
//   encoded_at   index the stored K/V currently encode (changes when a correction runs),
//   used_at      index the model treats the slot as now (after a reset: 0 .. S-1).
// A slot is correct when encoded_at == used_at (and key_scale == 1).
struct KvSlot {
  int token = 0;           // token id
  std::string label;       // "s3", "a3", "B7", ... for drawing
  double computed_at = 0;  // see above
  double encoded_at = 0;
  double used_at = 0;
  double key_scale =
      1.0;  // stored keys / correctly scaled keys (the YaRN-table pitfall gives mscale^2)
  bool approximate = false;  // encoded_at was moved by an approximate correction (legacy)
};

struct KvCacheLayer {
  RowMatrix keys;    // (S, W), RoPE-rotated to encoded_at (with the model's table scale)
  RowMatrix values;  // (S, W), never rotated
};

struct KvCache {
  std::vector<KvCacheLayer> layers;  // one per block
  std::vector<KvSlot> slots;         // S entries, oldest first
  bool float32 = true;               // K/V rounded to float32 when stored, as real caches hold them
};

KvCache kv_cache_make(int layers, int width, bool float32);
int kv_cache_size(const KvCache& c);
// Index the next appended token gets when it continues the cache's numbering
// (last used_at + 1, or 0 when empty).
double kv_cache_next_index(const KvCache& c);

// Appends T rows to one layer (rounding to float32 if the cache says so). Slots are
// appended separately with kv_cache_append_slots once every layer has its rows.
void kv_cache_append_rows(KvCache& c, int layer, const RowMatrix& keys, const RowMatrix& values);
void kv_cache_append_slots(KvCache& c, const std::vector<int>& tokens,
                           const std::vector<double>& positions);

// Removes the n oldest slots from every layer. Indices of the rest are untouched.
void kv_cache_drop_oldest(KvCache& c, int n);
// UniZero's index reset: the model now uses the slots as 0 .. S-1. K/V are untouched,
// so without a correction every slot whose encoded_at differs is now wrong.
void kv_cache_reset_indices(KvCache& c);

// Learned positions, UniZero's legacy correction: per layer, K += (P[used] - P[encoded]) * wk
// and V += (P[used] - P[encoded]) * wv. Exact only where K/V are linear in P (layer 0
// without LayerNorm); LayerNorm and attention context make it an approximation.
void kv_cache_correct_legacy(const KvModel& m, KvCache& c);
// The same one layer at a time (the KV lab's steps): the delta (S, W) of the slots, each
// layer corrected with it, then the slots marked as moved.
RowMatrix kv_cache_legacy_delta(const KvModel& m, const KvCache& c);
void kv_cache_correct_legacy_layer(const KvModel& m, KvCache& c, const RowMatrix& delta, int layer);
void kv_cache_correct_legacy_slots(KvCache& c);

// RoPE K-shift (llama.cpp): each key rotated once by (used_at - encoded_at), the angle
// difference taken in double. Values untouched. Exact.
void kv_cache_rope_shift(const KvModel& m, KvCache& c);

// RoPE re-encode as the stitching seed does it: inverse rotation at encoded_at, then
// forward at used_at. With scaled_tables the cos/sin of both steps carry the model's
// table scale (YaRN temperature m): the stored m*R(p)k becomes m^3*R(q)k instead of
// m*R(q)k, i.e. off by m^2. Without, it equals the K-shift up to rounding.
void kv_cache_rope_reencode(const KvModel& m, KvCache& c, bool scaled_tables);

// [first; second] along the slots; computed_at and encoded_at kept from the sources,
// used_at = 0 .. L-1 (the stitched cache is read as one sequence).
KvCache kv_cache_stitch(const KvCache& first, const KvCache& second);
// The listed slots, in that order (retrieval for KV-cache RAG). Throws on a bad index.
KvCache kv_cache_select(const KvCache& c, const std::vector<int>& slots);

}  // namespace poslab
