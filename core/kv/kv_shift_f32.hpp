// Re-encoding a large float32 key cache in place (a K-shift over many layers and heads):
// the hot loop of moving a long cache to new positions. cos/sin of the angle change
// (new - old) * inv_freq are computed once per (position, pair) in double and stored as
// float; the rotation is then a float multiply-add over contiguous rows, which the
// compiler vectorises. Memory-bound: compare it with copying the same bytes.
//
// Shapes: B = blocks (layers x heads), N = positions, D = head dim, P = rotary pairs.
// keys is (B, N, D) contiguous: block b, position n, dim j at keys[(b * N + n) * D + j].
#pragma once
#include <cstddef>
#include <vector>

#include "core/rope/rope.hpp"

namespace poslab {

struct KvShiftTable {
  int positions = 0;  // N
  int head_dim = 0;   // D
  int pairs = 0;      // P (rotary pairs; dims past 2P are left alone)
  RopeLayout layout = RopeLayout::half_split;
  std::vector<float> cos_delta;  // (N, P): cos((new_n - old_n) * inv_freq_i)
  std::vector<float> sin_delta;  // (N, P): sin(...)
};

// Throws InputError if the position lists differ in length or the RoPE params are invalid.
KvShiftTable kv_shift_table(const RopeParams& p, const std::vector<double>& old_positions,
                            const std::vector<double>& new_positions);

// Rotates every block of keys (B, N, D) in place by the table's angle changes.
void kv_shift_apply_f32(const KvShiftTable& t, float* keys, std::size_t blocks);

}  // namespace poslab
