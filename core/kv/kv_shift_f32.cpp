// Bulk float32 K-shift (see kv_shift_f32.hpp). The loops are written so GCC vectorises
// them at -O2/-O3: contiguous loads of the two halves (half-split) or of pairs
// (interleaved), no branches inside.
#include "core/kv/kv_shift_f32.hpp"

#include <cmath>
#include <string>

#include "core/common/errors.hpp"

namespace poslab {

KvShiftTable kv_shift_table(const RopeParams& p, const std::vector<double>& old_positions,
                            const std::vector<double>& new_positions) {
  rope_validate(p);
  if (old_positions.size() != new_positions.size())
    throw InputError("K-shift: " + std::to_string(old_positions.size()) + " old positions but " +
                     std::to_string(new_positions.size()) + " new positions");
  const Eigen::VectorXd inv = rope_inv_freq(p);
  KvShiftTable t;
  t.positions = static_cast<int>(old_positions.size());
  t.head_dim = p.head_dim;
  t.pairs = rope_num_pairs(p);
  t.layout = p.layout;
  t.cos_delta.resize(static_cast<std::size_t>(t.positions) * t.pairs);
  t.sin_delta.resize(t.cos_delta.size());
  for (int n = 0; n < t.positions; ++n) {
    const double delta = new_positions[n] - old_positions[n];  // exact for integer positions
    for (int i = 0; i < t.pairs; ++i) {
      const double a = delta * inv[i];
      t.cos_delta[static_cast<std::size_t>(n) * t.pairs + i] = static_cast<float>(std::cos(a));
      t.sin_delta[static_cast<std::size_t>(n) * t.pairs + i] = static_cast<float>(std::sin(a));
    }
  }
  return t;
}

namespace {

// One row, half-split layout: pair i is (x[i], x[i + P]).
inline void rotate_half_split(float* __restrict x, const float* __restrict c,
                              const float* __restrict s, int P) {
  float* __restrict y = x + P;
  for (int i = 0; i < P; ++i) {
    const float a = x[i], b = y[i];
    x[i] = a * c[i] - b * s[i];
    y[i] = a * s[i] + b * c[i];
  }
}

// One row, interleaved layout: pair i is (x[2i], x[2i + 1]).
inline void rotate_interleaved(float* __restrict x, const float* __restrict c,
                               const float* __restrict s, int P) {
  for (int i = 0; i < P; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    x[2 * i] = a * c[i] - b * s[i];
    x[2 * i + 1] = a * s[i] + b * c[i];
  }
}

}  // namespace

void kv_shift_apply_f32(const KvShiftTable& t, float* keys, std::size_t blocks) {
  const std::size_t N = static_cast<std::size_t>(t.positions),
                    D = static_cast<std::size_t>(t.head_dim);
  const int P = t.pairs;
  for (std::size_t b = 0; b < blocks; ++b) {
    float* block = keys + b * N * D;
    for (std::size_t n = 0; n < N; ++n) {
      const float* c = t.cos_delta.data() + n * P;
      const float* s = t.sin_delta.data() + n * P;
      if (t.layout == RopeLayout::half_split)
        rotate_half_split(block + n * D, c, s, P);
      else
        rotate_interleaved(block + n * D, c, s, P);
    }
  }
}

}  // namespace poslab
