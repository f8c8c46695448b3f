// KV cache operations (see kv_cache.hpp). Every correction rounds what it stores back to
// float32 when the cache holds float32, as a real cache would.
#include "core/kv/kv_cache.hpp"

#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/rope/rope_table.hpp"

namespace poslab {
namespace {

void round_if_float32(const KvCache& c, RowMatrix& x) {
  if (c.float32) x = x.cast<float>().cast<double>();
}

void require_rope(const KvModel& m, const char* what) {
  if (m.params.positions != KvPositions::rope)
    throw InputError(std::string(what) +
                     " needs positions = rope (this model uses learned positions)");
}

void require_shape(const KvModel& m, const KvCache& c) {
  if (static_cast<int>(c.layers.size()) != m.params.layers)
    throw InputError("cache has " + std::to_string(c.layers.size()) + " layers but the model has " +
                     std::to_string(m.params.layers));
}

int table_row(const KvModel& m, double index) {
  const int C = m.params.context;
  if (!(index >= 0 && index <= C - 1 && index == std::floor(index)))
    throw InputError("legacy correction: index " + format_double(index) +
                     " is outside the position table 0.." + std::to_string(C - 1));
  return static_cast<int>(index);
}

// Applies f(block (S, D)), in place, to every head's key columns of every layer.
template <class F>
void for_each_key_block(const KvModel& m, KvCache& c, F f) {
  const int d = kv_head_dim(m.params);
  for (auto& layer : c.layers) {
    for (int h = 0; h < m.params.heads; ++h) f(layer.keys.middleCols(h * d, d));
    round_if_float32(c, layer.keys);
  }
}

std::vector<double> slot_positions(const KvCache& c, double KvSlot::*which) {
  std::vector<double> out;
  out.reserve(c.slots.size());
  for (const auto& s : c.slots) out.push_back(s.*which);
  return out;
}

}  // namespace

KvCache kv_cache_make(int layers, int width, bool float32) {
  KvCache c;
  c.layers.assign(layers, KvCacheLayer{RowMatrix(0, width), RowMatrix(0, width)});
  c.float32 = float32;
  return c;
}

int kv_cache_size(const KvCache& c) {
  return static_cast<int>(c.slots.size());
}

double kv_cache_next_index(const KvCache& c) {
  return c.slots.empty() ? 0.0 : c.slots.back().used_at + 1.0;
}

void kv_cache_append_rows(KvCache& c, int layer, const RowMatrix& keys, const RowMatrix& values) {
  KvCacheLayer& L = c.layers.at(layer);
  const Eigen::Index s = L.keys.rows(), t = keys.rows();
  RowMatrix k = keys, v = values;
  round_if_float32(c, k);
  round_if_float32(c, v);
  L.keys.conservativeResize(s + t, Eigen::NoChange);
  L.values.conservativeResize(s + t, Eigen::NoChange);
  L.keys.bottomRows(t) = k;
  L.values.bottomRows(t) = v;
}

void kv_cache_append_slots(KvCache& c, const std::vector<int>& tokens,
                           const std::vector<double>& positions) {
  for (size_t t = 0; t < tokens.size(); ++t) {
    KvSlot s;
    s.token = tokens[t];
    s.computed_at = s.encoded_at = s.used_at = positions[t];
    c.slots.push_back(s);
  }
}

void kv_cache_drop_oldest(KvCache& c, int n) {
  if (n < 0 || n > kv_cache_size(c))
    throw InputError("drop " + std::to_string(n) + " oldest slots: the cache holds " +
                     std::to_string(kv_cache_size(c)));
  for (auto& L : c.layers) {
    const Eigen::Index keep = L.keys.rows() - n;
    L.keys = RowMatrix(L.keys.bottomRows(keep));
    L.values = RowMatrix(L.values.bottomRows(keep));
  }
  c.slots.erase(c.slots.begin(), c.slots.begin() + n);
}

void kv_cache_reset_indices(KvCache& c) {
  for (size_t i = 0; i < c.slots.size(); ++i) c.slots[i].used_at = static_cast<double>(i);
}

void kv_cache_correct_legacy(const KvModel& m, KvCache& c) {
  const RowMatrix delta = kv_cache_legacy_delta(m, c);
  for (int l = 0; l < m.params.layers; ++l) kv_cache_correct_legacy_layer(m, c, delta, l);
  kv_cache_correct_legacy_slots(c);
}

RowMatrix kv_cache_legacy_delta(const KvModel& m, const KvCache& c) {
  require_shape(m, c);
  if (m.params.positions != KvPositions::learned)
    throw InputError(
        "legacy correction needs positions = learned (it adds projected position-table rows)");
  const int S = kv_cache_size(c);
  // delta is (S, W): P[used] - P[encoded] for each slot.
  RowMatrix delta(S, m.params.width);
  for (int i = 0; i < S; ++i)
    delta.row(i) = m.position_embedding.row(table_row(m, c.slots[i].used_at)) -
                   m.position_embedding.row(table_row(m, c.slots[i].encoded_at));
  return delta;
}

void kv_cache_correct_legacy_layer(const KvModel& m, KvCache& c, const RowMatrix& delta,
                                   int layer) {
  KvCacheLayer& L = c.layers[layer];
  L.keys += delta * m.layers[layer].wk;
  L.values += delta * m.layers[layer].wv;
  round_if_float32(c, L.keys);
  round_if_float32(c, L.values);
}

void kv_cache_correct_legacy_slots(KvCache& c) {
  for (auto& s : c.slots) {
    if (s.encoded_at != s.used_at) s.approximate = true;
    s.encoded_at = s.used_at;
  }
}

void kv_cache_rope_shift(const KvModel& m, KvCache& c) {
  require_shape(m, c);
  require_rope(m, "K-shift");
  // ONE rotation by (new - old), the difference taken in double (as rope_reencode does),
  // from one table shared by every layer and head.
  const std::vector<double> from = slot_positions(c, &KvSlot::encoded_at),
                            to = slot_positions(c, &KvSlot::used_at);
  std::vector<double> delta(from.size());
  for (size_t t = 0; t < delta.size(); ++t) delta[t] = to[t] - from[t];
  const RopeTable shift(kv_rope_params(m.params), delta);
  for_each_key_block(m, c, [&](Eigen::Ref<RowMatrix> b) { shift.apply(b); });
  for (auto& s : c.slots) s.encoded_at = s.used_at;
}

void kv_cache_rope_reencode(const KvModel& m, KvCache& c, bool scaled_tables) {
  require_shape(m, c);
  require_rope(m, "re-encoding");
  // Inverse at the old positions, then forward at the new ones: two tables built once.
  const RopeParams rp = kv_rope_params(m.params);
  const RopeTable from(rp, slot_positions(c, &KvSlot::encoded_at), scaled_tables),
      to(rp, slot_positions(c, &KvSlot::used_at), scaled_tables);
  for_each_key_block(m, c, [&](Eigen::Ref<RowMatrix> b) {
    from.apply_inverse(b);
    to.apply(b);
  });
  const double t = kv_rope_table_scale(m.params);
  for (auto& s : c.slots) {
    s.encoded_at = s.used_at;
    if (scaled_tables) s.key_scale *= t * t;
  }
}

KvCache kv_cache_stitch(const KvCache& first, const KvCache& second) {
  if (first.layers.size() != second.layers.size())
    throw InputError("stitch: the caches have " + std::to_string(first.layers.size()) + " and " +
                     std::to_string(second.layers.size()) + " layers");
  KvCache c = first;
  for (size_t l = 0; l < c.layers.size(); ++l) {
    c.layers[l].keys.conservativeResize(first.layers[l].keys.rows() + second.layers[l].keys.rows(),
                                        Eigen::NoChange);
    c.layers[l].values.conservativeResize(c.layers[l].keys.rows(), Eigen::NoChange);
    c.layers[l].keys.bottomRows(second.layers[l].keys.rows()) = second.layers[l].keys;
    c.layers[l].values.bottomRows(second.layers[l].values.rows()) = second.layers[l].values;
  }
  c.slots.insert(c.slots.end(), second.slots.begin(), second.slots.end());
  kv_cache_reset_indices(c);
  return c;
}

KvCache kv_cache_select(const KvCache& c, const std::vector<int>& slots) {
  KvCache out = c;
  out.slots.clear();
  for (size_t l = 0; l < c.layers.size(); ++l) {
    out.layers[l].keys.resize(static_cast<Eigen::Index>(slots.size()), c.layers[l].keys.cols());
    out.layers[l].values.resize(static_cast<Eigen::Index>(slots.size()), c.layers[l].values.cols());
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    const int s = slots[i];
    if (s < 0 || s >= kv_cache_size(c))
      throw InputError("retrieve slot " + std::to_string(s) + ": the cache holds slots 0.." +
                       std::to_string(kv_cache_size(c) - 1));
    for (size_t l = 0; l < c.layers.size(); ++l) {
      out.layers[l].keys.row(i) = c.layers[l].keys.row(s);
      out.layers[l].values.row(i) = c.layers[l].values.row(s);
    }
    out.slots.push_back(c.slots[s]);
  }
  return out;
}

}  // namespace poslab
