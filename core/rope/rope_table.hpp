// RoPE with its numbers precomputed: validate the parameters once, compute the (scaled)
// frequencies once, and cos/sin once per (position, pair); then rotate any number of row
// blocks (every head, q and k, every layer) with multiplies only. The results equal
// rope_apply / rope_apply_inverse bit for bit (same angle, same cos/sin, same products;
// tests/core/rope_table_test.cpp checks it for every scaling and both layouts).
//
// Shapes: T = rows of the table (positions), D = head dim, R = rotary dims, P = R/2 pairs.
//   cos, sin are (T, P): entry (t, i) = cos / sin(positions[t] * inv_freq[i]) * table_scale.
//   x blocks are (n, D), row r rotated with table row first_row + r; dims past R untouched.
//
// Layouts (see rope.hpp): interleaved pair i = dims (2i, 2i+1); half_split = (i, i+P).
#pragma once
#include <vector>

#include "core/rope/rope.hpp"

namespace poslab {

class RopeTable {
 public:
  RopeTable() = default;  // no rows; apply() on an empty block only
  // Throws the InputError rope_validate throws. With temperature_in_tables cos and sin
  // carry rope_attention_scale (as rope_apply's flag of the same name).
  RopeTable(const RopeParams& p, const std::vector<double>& positions,
            bool temperature_in_tables = false);
  // Positions first, first + 1, ..., first + count - 1.
  static RopeTable range(const RopeParams& p, double first, int count,
                         bool temperature_in_tables = false);

  // New positions, same parameters: recomputes cos/sin only (no validation, no pow).
  void set_positions(const std::vector<double>& positions);

  const RopeParams& params() const { return params_; }
  const std::vector<double>& positions() const { return positions_; }
  const Eigen::VectorXd& inv_freq() const { return inv_freq_; }  // (P,) scaled frequencies
  double table_scale() const { return table_scale_; }
  int rows() const { return static_cast<int>(positions_.size()); }
  int pairs() const { return static_cast<int>(inv_freq_.size()); }
  const RowMatrix& cos() const { return cos_; }  // (T, P)
  const RowMatrix& sin() const { return sin_; }  // (T, P)

  // In place: row r of x (n, D) turns by +angle(positions[first_row + r]). Throws
  // InputError if x does not have D columns or the rows run past the table.
  void apply(Eigen::Ref<RowMatrix> x, int first_row = 0) const;
  // x*cos - rotate_half(x)*sin: a turn by -angle (with scaled tables, as rope_apply_inverse).
  void apply_inverse(Eigen::Ref<RowMatrix> x, int first_row = 0) const;
  // Copying forms with rope_apply's signature and checks (x must have T rows).
  RowMatrix applied(const RowMatrix& x) const;
  RowMatrix applied_inverse(const RowMatrix& x) const;

 private:
  void rotate(Eigen::Ref<RowMatrix> x, int first_row, double sin_sign) const;
  void check_rows(Eigen::Index cols, Eigen::Index rows, int first_row) const;
  void require_all_rows(Eigen::Index cols, Eigen::Index rows) const;

  RopeParams params_;
  std::vector<double> positions_;
  Eigen::VectorXd inv_freq_;
  double table_scale_ = 1.0;
  RowMatrix cos_, sin_;
};

}  // namespace poslab
