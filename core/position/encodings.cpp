// Position encodings as functions of positions (see encodings.hpp for the formulas).
#include "core/position/encodings.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "core/position/position_messages.hpp"

namespace poslab {

RowMatrix sinusoidal_encoding(const std::vector<double>& positions, int dim, double base,
                              SinusoidLayout layout) {
  if (dim < 2 || dim % 2)
    throw InputError(position_message("attention.error.sinusoidal_dim",
                                      {message_arg("dim", std::to_string(dim))}));
  const int half = dim / 2;
  RowMatrix pe(static_cast<Eigen::Index>(positions.size()), dim);
  for (int i = 0; i < half; ++i) {
    const double w = std::pow(base, -2.0 * i / dim);
    const int sin_col = layout == SinusoidLayout::interleaved ? 2 * i : i;
    const int cos_col = layout == SinusoidLayout::interleaved ? 2 * i + 1 : half + i;
    for (size_t t = 0; t < positions.size(); ++t) {
      pe(t, sin_col) = std::sin(positions[t] * w);
      pe(t, cos_col) = std::cos(positions[t] * w);
    }
  }
  return pe;
}

RowMatrix learned_position_table(int length, int dim, uint64_t seed, double std_dev) {
  RowMatrix table(length, dim);
  for (int p = 0; p < length; ++p) {
    SeededStream rng(seed, "learned_position", static_cast<uint64_t>(p));
    for (int c = 0; c < dim; ++c) table(p, c) = std_dev * rng.normal();
  }
  return table;
}

bool learned_has_row(double position, int length) {
  return position >= 0 && position < length && position == std::floor(position);
}

RowMatrix sincos_2d_encoding(const std::vector<double>& rows, const std::vector<double>& cols,
                             int dim, double base) {
  if (dim < 4 || dim % 4)
    throw InputError(position_message("attention.error.sincos_2d_dim",
                                      {message_arg("dim", std::to_string(dim))}));
  const int half = dim / 2, quarter = dim / 4;
  RowMatrix pe(static_cast<Eigen::Index>(rows.size()), dim);
  for (int i = 0; i < quarter; ++i) {
    const double w = std::pow(base, -static_cast<double>(i) / quarter);
    for (size_t t = 0; t < rows.size(); ++t) {
      pe(t, i) = std::sin(cols[t] * w);  // first half: column coordinate
      pe(t, quarter + i) = std::cos(cols[t] * w);
      pe(t, half + i) = std::sin(rows[t] * w);  // second half: row coordinate
      pe(t, half + quarter + i) = std::cos(rows[t] * w);
    }
  }
  return pe;
}

std::vector<double> alibi_slopes(int heads) {
  if (heads < 1)
    throw InputError(position_message("attention.error.alibi_heads",
                                      {message_arg("heads", std::to_string(heads))}));
  auto power_of_two_slopes = [](int n) {
    std::vector<double> s(n);
    for (int h = 1; h <= n; ++h) s[h - 1] = std::exp2(-8.0 * h / n);
    return s;
  };
  int p = 1;
  while (p * 2 <= heads) p *= 2;
  std::vector<double> slopes = power_of_two_slopes(p);
  if (p == heads) return slopes;
  const std::vector<double> doubled = power_of_two_slopes(2 * p);
  for (int k = 0; k < heads - p; ++k) slopes.push_back(doubled[2 * k]);
  return slopes;
}

void t5_validate(bool bidirectional, int num_buckets, int max_distance) {
  const int side = bidirectional ? num_buckets / 2 : num_buckets;
  if (num_buckets % 2 || side < 2)
    throw InputError(position_message(
        bidirectional ? "attention.error.t5_buckets_bidirectional" : "attention.error.t5_buckets",
        {message_arg("buckets", std::to_string(num_buckets))}));
  const int max_exact = side / 2;
  if (max_distance <= max_exact)
    throw InputError(position_message("attention.error.t5_max_distance",
                                      {message_arg("max_distance", std::to_string(max_distance)),
                                       message_arg("max_exact", std::to_string(max_exact))}));
}

int t5_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  int bucket = 0;
  int side = num_buckets;
  long long n = relative_position;
  if (bidirectional) {
    side = num_buckets / 2;
    if (n > 0) bucket += side;
    n = std::llabs(n);
  } else {
    n = n < 0 ? -n : 0;  // keys after the query collapse into bucket 0
  }
  const int max_exact = side / 2;
  if (n < max_exact) return bucket + static_cast<int>(n);
  const double frac = std::log(static_cast<double>(n) / max_exact) /
                      std::log(static_cast<double>(max_distance) / max_exact);
  const long long large = max_exact + static_cast<long long>(std::floor(frac * (side - max_exact)));
  return bucket + static_cast<int>(std::min<long long>(large, side - 1));
}

std::vector<T5BucketRange> t5_bucket_ranges(bool bidirectional, int num_buckets, int max_distance,
                                            int horizon) {
  t5_validate(bidirectional, num_buckets, max_distance);
  std::vector<T5BucketRange> out(num_buckets);
  for (int b = 0; b < num_buckets; ++b) out[b].bucket = b;
  for (int r = -horizon; r <= horizon; ++r) {
    T5BucketRange& b = out[t5_bucket(r, bidirectional, num_buckets, max_distance)];
    b.lo = b.count ? std::min(b.lo, r) : r;
    b.hi = b.count ? std::max(b.hi, r) : r;
    ++b.count;
  }
  // Open-ended: the bucket of the distance just past either edge of the horizon.
  out[t5_bucket(horizon + 1, bidirectional, num_buckets, max_distance)].open_ended = true;
  out[t5_bucket(-horizon - 1, bidirectional, num_buckets, max_distance)].open_ended = true;
  return out;
}

int swin_table_size(int window_h, int window_w) {
  return (2 * window_h - 1) * (2 * window_w - 1);
}

int swin_relative_index(int dh, int dw, int window_h, int window_w) {
  if (std::abs(dh) >= window_h || std::abs(dw) >= window_w)
    throw InputError(position_message(
        "attention.error.swin_offset",
        {message_arg("dh", std::to_string(dh)), message_arg("dw", std::to_string(dw)),
         message_arg("h", std::to_string(window_h)), message_arg("w", std::to_string(window_w))}));
  return (dh + window_h - 1) * (2 * window_w - 1) + (dw + window_w - 1);
}

RowMatrix terrain_heights(int rows, int cols, uint64_t seed, double max_height_m) {
  RowMatrix h = RowMatrix::Zero(rows, cols);
  SeededStream rng(seed, "terrain", 0);
  const double tilt_r = rng.uniform() - 0.5, tilt_c = rng.uniform() - 0.5;
  struct Hill {
    double r, c, sigma, height;
  };
  std::vector<Hill> hills(5);
  for (auto& hill : hills)
    hill = {rng.uniform(), rng.uniform(), 0.08 + 0.22 * rng.uniform(), 0.4 + rng.uniform()};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      // Coordinates in [0, 1] across the grid, so the landscape scales with the grid.
      const double y = rows > 1 ? static_cast<double>(r) / (rows - 1) : 0.5;
      const double x = cols > 1 ? static_cast<double>(c) / (cols - 1) : 0.5;
      double v = 0.3 * (tilt_r * y + tilt_c * x);
      for (const auto& hill : hills) {
        const double d2 = (y - hill.r) * (y - hill.r) + (x - hill.c) * (x - hill.c);
        v += hill.height * std::exp(-d2 / (2 * hill.sigma * hill.sigma));
      }
      h(r, c) = v;
    }
  }
  const double lo = h.minCoeff(), hi = h.maxCoeff();
  if (hi - lo <= 0) return RowMatrix::Zero(rows, cols);
  return ((h.array() - lo) * (max_height_m / (hi - lo))).matrix();
}

double elevation_bias(double query_height_m, double key_height_m, double alpha) {
  const double uphill_km = std::max(0.0, (key_height_m - query_height_m) / 1000.0);
  return std::clamp(-alpha * uphill_km, -10.0, 0.0);
}

}  // namespace poslab
