// The position encodings as plain functions of positions (and heads), one place for the
// attention lab, the language models and the quiz.
// Absolute ones give vectors added to token embeddings; relative ones give scalars added
// to attention logits. Facts and formulas: shared/spec/position-encodings.md.
//
// Shapes: T = tokens, D = model dims, H = heads. Encodings are (T, D), one row per token.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/rope/rope.hpp"  // RowMatrix

namespace poslab {

// ---- Sinusoidal (Vaswani et al. 2017) -----------------------------------------------
// Frequencies w_i = base^(-2i/D), i = 0 .. D/2 - 1. Two layouts of the same numbers:
//   interleaved  (paper):           [sin w0 p, cos w0 p, sin w1 p, cos w1 p, ...]
//   concatenated (tensor2tensor):   [sin w0 p, sin w1 p, ... | cos w0 p, cos w1 p, ...]
enum class SinusoidLayout { interleaved, concatenated };
// (T, D) for the given positions; D even. Angles in double.
RowMatrix sinusoidal_encoding(const std::vector<double>& positions, int dim, double base,
                              SinusoidLayout layout);

// ---- Learned absolute table (GPT-2, BERT, ViT) ----------------------------------------
// A seeded stand-in for a trained (length, D) table: row p ~ N(0, std^2), each row from
// its own stream so a longer table keeps the rows of a shorter one.
RowMatrix learned_position_table(int length, int dim, uint64_t seed, double std_dev);
// True when position p has a row: p is a whole number in [0, length).
bool learned_has_row(double position, int length);

// ---- 2-D sin-cos for patch grids (MAE, ClimaX initialisation) -------------------------
// Half the channels per axis, each half a concatenated 1-D sinusoid over D/2 dims with
// frequencies base^(-i/(D/4)). As in MAE's get_2d_sincos_pos_embed (meshgrid with w first),
// the FIRST half encodes the column coordinate and the SECOND half the row. D % 4 == 0.
RowMatrix sincos_2d_encoding(const std::vector<double>& rows, const std::vector<double>& cols,
                             int dim, double base);

// ---- ALiBi (Press et al. 2022) -------------------------------------------------------
// Head h = 1..n of n heads, n a power of two: m_h = 2^(-8h/n). Otherwise take the p =
// 2^floor(log2 n) slopes, then the first n - p of every second slope (1st, 3rd, ...) of
// the 2p-head list. Bias for query i, key j: -m_h * |p_i - p_j| (the paper's -m (i - j)
// for j <= i; the absolute value is the symmetric form used without a causal mask).
std::vector<double> alibi_slopes(int heads);

// ---- T5 relative buckets (Raffel et al.; HF modeling_t5) -----------------------------
// relative_position = key - query. Bidirectional: buckets/2 per sign (key after query
// gets the upper half); unidirectional (decoder): keys after the query all land in 0.
// Inside one side: n < max_exact = side/2 exact; otherwise
//   max_exact + floor(ln(n/max_exact) / ln(max_distance/max_exact) * (side - max_exact)),
// capped at side - 1. Computed in double (HF uses float32; no bucket edge differs for
// integer distances at the default settings, checked in the tests).
int t5_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance);
// Throws InputError unless num_buckets is even and leaves max_exact >= 1 per side, and
// max_distance > max_exact.
void t5_validate(bool bidirectional, int num_buckets, int max_distance);
// Which relative positions (key - query) fall into each bucket, looked at over
// [-horizon, horizon]. lo/hi are the extremes seen (empty buckets: count 0); open_ended
// when the bucket also catches everything past the horizon.
struct T5BucketRange {
  int bucket = 0;
  int count = 0;       // relative positions in [-horizon, horizon] mapped here
  int lo = 0, hi = 0;  // smallest and largest of them
  bool open_ended = false;
};
std::vector<T5BucketRange> t5_bucket_ranges(bool bidirectional, int num_buckets, int max_distance,
                                            int horizon);

// ---- Swin relative position bias (Liu et al. 2021) -----------------------------------
// A table of (2Wh - 1)(2Ww - 1) x H learned scalars; tokens i, j of one Wh x Ww window
// with dh = row_i - row_j, dw = col_i - col_j read entry
//   (dh + Wh - 1) * (2Ww - 1) + (dw + Ww - 1).
int swin_table_size(int window_h, int window_w);
// Throws InputError when |dh| >= Wh or |dw| >= Ww (the pair is not inside one window).
int swin_relative_index(int dh, int dw, int window_h, int window_w);

// ---- Terrain and the TopoFlow elevation bias (seed 003) -------------------------------
// A seeded smooth height map (rows, cols) in metres, minimum 0 and maximum max_height_m:
// a few Gaussian hills plus a tilt, scaled with the grid so its shape stays recognisable.
RowMatrix terrain_heights(int rows, int cols, uint64_t seed, double max_height_m);
// bias(query i -> key j) = -alpha * max(0, (h_j - h_i) / 1000 m), clamped to [-10, 0].
// Zero when the key is at or below the query (downhill); the same for every head.
double elevation_bias(double query_height_m, double key_height_m, double alpha);

}  // namespace poslab
