// Precomputed RoPE tables (see rope_table.hpp). The angle, cos/sin and the two products
// per pair are the ones rotate_rows in rope.cpp computes, in the same order, so a table
// rotation equals rope_apply exactly; only the repeated work is gone.
#include "core/rope/rope_table.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"

namespace poslab {

RopeTable::RopeTable(const RopeParams& p, const std::vector<double>& positions,
                     bool temperature_in_tables) {
  rope_validate(p);
  params_ = p;
  inv_freq_ = rope_inv_freq(p);
  table_scale_ = temperature_in_tables ? rope_attention_scale(p) : 1.0;
  set_positions(positions);
}

RopeTable RopeTable::range(const RopeParams& p, double first, int count,
                           bool temperature_in_tables) {
  if (count < 0) throw InputError("RoPE table: " + std::to_string(count) + " positions");
  std::vector<double> positions(static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) positions[t] = first + t;
  return RopeTable(p, positions, temperature_in_tables);
}

void RopeTable::set_positions(const std::vector<double>& positions) {
  positions_ = positions;
  const int P = pairs();
  cos_.resize(rows(), P);
  sin_.resize(rows(), P);
  for (int t = 0; t < rows(); ++t) {
    const double m = positions_[t];
    double* c = cos_.row(t).data();
    double* s = sin_.row(t).data();
    for (int i = 0; i < P; ++i) {
      const double a = m * inv_freq_[i];
      c[i] = std::cos(a) * table_scale_;
      s[i] = std::sin(a) * table_scale_;
    }
  }
}

void RopeTable::check_rows(Eigen::Index cols, Eigen::Index rows, int first_row) const {
  if (cols != params_.head_dim)
    throw InputError("x has " + std::to_string(cols) +
                     " columns but head_dim = " + std::to_string(params_.head_dim));
  if (first_row < 0 || first_row + rows > this->rows()) {
    if (first_row == 0)
      throw InputError("x has " + std::to_string(rows) + " rows but " +
                       std::to_string(this->rows()) + " positions were given");
    throw InputError("x has " + std::to_string(rows) + " rows from table row " +
                     std::to_string(first_row) + " but the table has " +
                     std::to_string(this->rows()) + " positions");
  }
}

void RopeTable::rotate(Eigen::Ref<RowMatrix> x, int first_row, double sin_sign) const {
  check_rows(x.cols(), x.rows(), first_row);
  const int P = pairs();
  // Pair i is (x[i*step0], x[i*step0 + offset1]): interleaved (2i, 2i+1), half (i, i+P).
  const bool inter = params_.layout == RopeLayout::interleaved;
  const int step = inter ? 2 : 1, second = inter ? 1 : P;
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    double* row = x.row(r).data();
    const double* c = cos_.row(first_row + r).data();
    const double* s = sin_.row(first_row + r).data();
    for (int i = 0; i < P; ++i) {
      double* u = row + i * step;
      double* v = u + second;
      const double a = *u, b = *v, si = sin_sign * s[i];
      *u = a * c[i] - b * si;
      *v = a * si + b * c[i];
    }
  }
}

void RopeTable::apply(Eigen::Ref<RowMatrix> x, int first_row) const {
  rotate(x, first_row, +1.0);
}

void RopeTable::apply_inverse(Eigen::Ref<RowMatrix> x, int first_row) const {
  rotate(x, first_row, -1.0);
}

RowMatrix RopeTable::applied(const RowMatrix& x) const {
  require_all_rows(x.cols(), x.rows());
  RowMatrix out = x;
  apply(out);
  return out;
}

RowMatrix RopeTable::applied_inverse(const RowMatrix& x) const {
  require_all_rows(x.cols(), x.rows());
  RowMatrix out = x;
  apply_inverse(out);
  return out;
}

void RopeTable::require_all_rows(Eigen::Index cols, Eigen::Index rows) const {
  check_rows(cols, std::min<Eigen::Index>(rows, this->rows()), 0);
  if (rows != this->rows())
    throw InputError("x has " + std::to_string(rows) + " rows but " + std::to_string(this->rows()) +
                     " positions were given");
}

}  // namespace poslab
