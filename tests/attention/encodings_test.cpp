// Position encodings of the attention lab against values computed independently (by hand
// from the papers' formulas, or by re-deriving them another way), never against our own
// earlier output: ALiBi slopes, T5 buckets, the Swin index, sinusoids, elevation bias.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "core/attention/tokenizer.hpp"
#include "core/common/errors.hpp"
#include "core/position/encodings.hpp"

using namespace poslab;

TEST_CASE("ALiBi slopes match the paper for powers of two and the interleaving rule otherwise") {
  // Hand-computed from Press et al.: n a power of two -> 2^(-8h/n); otherwise the slopes of
  // p = 2^floor(log2 n) heads, then every second slope of the 2p list, first n - p of them.
  const std::vector<std::pair<int, std::vector<double>>> cases = {
      {1, {1.0 / 256}},
      {2, {1.0 / 16, 1.0 / 256}},
      {3, {1.0 / 16, 1.0 / 256, 1.0 / 4}},
      {5, {1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2}},
      {6, {1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8}},
      {8, {1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128, 1.0 / 256}},
      {12,
       {1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128, 1.0 / 256,
        std::pow(2.0, -0.5), std::pow(2.0, -1.5), std::pow(2.0, -2.5), std::pow(2.0, -3.5)}},
  };
  for (const auto& [n, want] : cases) {
    const std::vector<double> got = alibi_slopes(n);
    INFO("heads = " << n);
    REQUIRE(got.size() == want.size());
    for (size_t h = 0; h < want.size(); ++h) {
      INFO("head index " << h);
      CHECK(got[h] == Approx(want[h]).epsilon(1e-15));
    }
  }
  // 16 heads: 2^(-h/2). The common mistake "2^(-8/n) for every head" would give one value.
  const std::vector<double> s16 = alibi_slopes(16);
  for (int h = 1; h <= 16; ++h) {
    INFO("heads = 16, h = " << h);
    CHECK(s16[h - 1] == Approx(std::pow(2.0, -h / 2.0)).epsilon(1e-15));
  }
  // Any head count: all slopes distinct, in (0, 1).
  for (int n = 1; n <= 64; ++n) {
    const std::vector<double> s = alibi_slopes(n);
    INFO("heads = " << n);
    CHECK(std::set<double>(s.begin(), s.end()).size() == static_cast<size_t>(n));
    for (double v : s) CHECK((v > 0 && v < 1));
  }
  CHECK_THROWS_AS(alibi_slopes(0), InputError);
}

TEST_CASE("T5 buckets match hand-computed values in both directions") {
  // Encoder: 32 buckets, max_distance 128 -> 16 per side, max_exact 8.
  // relative_position = key - query; keys after the query use buckets 16..31.
  const std::vector<std::pair<int, int>> encoder = {
      {0, 0},    {-1, 1},   {1, 17},    {-7, 7},    {-8, 8},     {-11, 8}, {-12, 9}, {-16, 10},
      {-32, 12}, {-64, 14}, {-127, 15}, {-128, 15}, {-1000, 15}, {16, 26}, {128, 31}};
  for (const auto& [rel, want] : encoder) {
    INFO("bidirectional, 32 buckets, max_distance 128, relative position " << rel);
    CHECK(t5_bucket(rel, true, 32, 128) == want);
  }
  // Decoder: 32 buckets on the past side only, max_exact 16; keys after the query -> 0.
  const std::vector<std::pair<int, int>> decoder = {{5, 0},    {0, 0},     {-1, 1},    {-15, 15},
                                                    {-16, 16}, {-18, 16},  {-19, 17},  {-20, 17},
                                                    {-21, 18}, {-127, 31}, {-128, 31}, {-500, 31}};
  for (const auto& [rel, want] : decoder) {
    INFO("unidirectional, 32 buckets, max_distance 128, relative position " << rel);
    CHECK(t5_bucket(rel, false, 32, 128) == want);
  }
}

TEST_CASE("T5 decoder bucket 17 covers distances 19-20, not 19-23") {
  const auto ranges = t5_bucket_ranges(false, 32, 128, 300);
  INFO("lo = " << ranges[17].lo << ", hi = " << ranges[17].hi << ", count = " << ranges[17].count);
  CHECK(ranges[17].count == 2);
  CHECK(ranges[17].lo == -20);
  CHECK(ranges[17].hi == -19);
  CHECK(ranges[31].open_ended);
  CHECK(ranges[0].open_ended);  // every future key of a decoder lands in bucket 0
  // Every bucket is used by some distance; buckets are monotone in distance on each side.
  for (const auto& r : ranges) {
    INFO("bucket " << r.bucket);
    CHECK(r.count > 0);
  }
  int last = 0;
  for (int n = 0; n <= 300; ++n) {
    const int b = t5_bucket(-n, false, 32, 128);
    INFO("distance " << n);
    CHECK(b >= last);
    last = b;
  }
  CHECK_THROWS_AS(t5_validate(true, 2, 128), InputError);  // one bucket per side: no exact range
  CHECK_THROWS_AS(t5_validate(true, 32, 8), InputError);   // max_distance must exceed max_exact
  CHECK_NOTHROW(t5_validate(false, 32, 128));
}

TEST_CASE("Swin relative index equals the reference construction") {
  // Hand values for a 7 x 7 window (table 13 x 13 = 169).
  CHECK(swin_table_size(7, 7) == 169);
  CHECK(swin_relative_index(-6, -6, 7, 7) == 0);
  CHECK(swin_relative_index(6, 6, 7, 7) == 168);
  CHECK(swin_relative_index(0, 0, 7, 7) == 84);
  CHECK(swin_relative_index(1, -2, 7, 7) == 95);
  // Non-square window 2 x 3: table 3 x 5.
  CHECK(swin_table_size(2, 3) == 15);
  CHECK(swin_relative_index(1, 2, 2, 3) == 14);
  CHECK(swin_relative_index(-1, -2, 2, 3) == 0);
  CHECK_THROWS_AS(swin_relative_index(2, 0, 2, 3), InputError);
  // The Swin code's construction for a 3 x 4 window: coords of every token, pairwise
  // differences c_i - c_j, shifted by W - 1, the row part times (2Ww - 1), summed.
  const int wh = 3, ww = 4, n = wh * ww;
  std::set<int> used;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int rel_h = (i / ww - j / ww) + wh - 1;
      const int rel_w = (i % ww - j % ww) + ww - 1;
      const int want = rel_h * (2 * ww - 1) + rel_w;
      INFO("window 3x4, tokens " << i << ", " << j);
      CHECK(swin_relative_index(i / ww - j / ww, i % ww - j % ww, wh, ww) == want);
      used.insert(want);
    }
  }
  CHECK(used.size() == static_cast<size_t>(swin_table_size(wh, ww)));
}

TEST_CASE("sinusoidal encodings hold the formula's values in both layouts") {
  const std::vector<double> pos = {0, 1, 3, 1000};
  const RowMatrix inter = sinusoidal_encoding(pos, 4, 10000, SinusoidLayout::interleaved);
  const RowMatrix concat = sinusoidal_encoding(pos, 4, 10000, SinusoidLayout::concatenated);
  // d = 4: w0 = 1, w1 = 10000^(-2/4) = 0.01.
  for (size_t t = 0; t < pos.size(); ++t) {
    const double p = pos[t];
    INFO("position " << p);
    CHECK(inter(t, 0) == Approx(std::sin(p)).margin(1e-12));
    CHECK(inter(t, 1) == Approx(std::cos(p)).margin(1e-12));
    CHECK(inter(t, 2) == Approx(std::sin(0.01 * p)).margin(1e-12));
    CHECK(inter(t, 3) == Approx(std::cos(0.01 * p)).margin(1e-12));
    CHECK(concat(t, 0) == inter(t, 0));
    CHECK(concat(t, 1) == inter(t, 2));
    CHECK(concat(t, 2) == inter(t, 1));
    CHECK(concat(t, 3) == inter(t, 3));
  }
  // 2-D sin-cos, D = 8: per axis D/2 = 4 dims, frequencies 1 and 10000^(-1/2) = 0.01; the
  // first half encodes the column (MAE's meshgrid puts w first), the second the row.
  const RowMatrix pe = sincos_2d_encoding({2}, {5}, 8, 10000);
  const double want[8] = {std::sin(5.0), std::sin(0.05), std::cos(5.0), std::cos(0.05),
                          std::sin(2.0), std::sin(0.02), std::cos(2.0), std::cos(0.02)};
  for (int c = 0; c < 8; ++c) {
    INFO("2-D sin-cos channel " << c);
    CHECK(pe(0, c) == Approx(want[c]).margin(1e-12));
  }
  CHECK_THROWS_AS(sincos_2d_encoding({0}, {0}, 6, 10000), InputError);
}

TEST_CASE("learned table: rows only for whole positions inside the table, stable across lengths") {
  CHECK(learned_has_row(0, 64));
  CHECK(learned_has_row(63, 64));
  CHECK_FALSE(learned_has_row(64, 64));
  CHECK_FALSE(learned_has_row(-1, 64));
  CHECK_FALSE(learned_has_row(2.5, 64));
  const RowMatrix a = learned_position_table(8, 16, 7, 1.0),
                  b = learned_position_table(32, 16, 7, 1.0);
  CHECK(a == b.topRows(8));  // a longer table keeps the shorter table's rows
}

TEST_CASE("elevation bias is zero downhill and clamped uphill") {
  const std::vector<std::tuple<double, double, double, double>> cases = {
      // query height, key height, alpha, expected bias
      {1000, 500, 1, 0},                       // downhill
      {500, 500, 1, 0},                        // level
      {0, 2000, 1, -2},                        // 2 km uphill
      {0, 2000, 0.5, -1}, {0, 2000, 10, -10},  // -20 clamped to -10
      {0, 20000, 1, -10},                      // -20 clamped
      {0, 9000, 1, -9},   {3000, 0, 100, 0},   // steep downhill stays 0 for any alpha
  };
  for (const auto& [hq, hk, alpha, want] : cases) {
    INFO("query " << hq << " m, key " << hk << " m, alpha " << alpha);
    CHECK(elevation_bias(hq, hk, alpha) == Approx(want).margin(1e-12));
  }
  const RowMatrix t = terrain_heights(9, 11, 5, 3000);
  CHECK(t.minCoeff() == Approx(0).margin(1e-9));
  CHECK(t.maxCoeff() == Approx(3000));
  CHECK(terrain_heights(1, 1, 5, 3000)(0, 0) == 0);
}

TEST_CASE("tokenizer splits on whitespace, or per CJK character when there is none") {
  using V = std::vector<std::string>;
  CHECK(tokenize_sentence("我 喜欢 你", 1024) == V{"我", "喜欢", "你"});
  CHECK(tokenize_sentence("我喜欢你", 1024) == V{"我", "喜", "欢", "你"});
  CHECK(tokenize_sentence("  the cat\tsat \n", 1024) == V{"the", "cat", "sat"});
  CHECK(tokenize_sentence("我爱NLP", 1024) == V{"我", "爱", "NLP"});
  CHECK(tokenize_sentence("你\u3000好", 1024) == V{"你", "好"});  // ideographic space
  CHECK(tokenize_sentence("Réponse courte", 1024) == V{"Réponse", "courte"});
  CHECK_THROWS_AS(tokenize_sentence("   ", 1024), InputError);
  CHECK_THROWS_WITH(tokenize_sentence("ab\xC3(", 1024), Catch::Contains("invalid UTF-8 at byte 3"));
  CHECK_THROWS_WITH(tokenize_sentence("a b c", 2), Catch::Contains("more than 2 tokens"));
}
