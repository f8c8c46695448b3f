// RopeTable (issue 11) against the direct formula: for every scaling mode, both layouts,
// partial rotary, and positions 0, odd, huge and negative, a table rotation equals
// rope_apply / rope_apply_inverse within kTol (doubles; observed: bit-identical), undoes
// itself, keeps norms, works on row blocks of wider matrices, and rejects what rope_apply
// rejects with the same message.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>

#include "core/common/errors.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_table.hpp"

using namespace poslab;

namespace {

// Entries of x are O(1); the table computes the same angle, cos/sin and products as
// rope_apply, so any difference would be a rounding difference of a few ulps at most.
constexpr double kTol = 1e-14;

RowMatrix random_rows(int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RowMatrix x(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) x(r, c) = u(rng);
  return x;
}

std::string describe(const RopeParams& p, bool temp) {
  return "head_dim=" + std::to_string(p.head_dim) + " rotary=" + std::to_string(p.rotary_fraction) +
         " base=" + std::to_string(p.base) +
         " layout=" + rope_layout_names()[static_cast<int>(p.layout)] +
         " scaling=" + rope_scaling_names()[static_cast<int>(p.scaling)] +
         " factor=" + std::to_string(p.factor) + " temperature_in_tables=" + std::to_string(temp);
}

const std::vector<double> kTablePositions{0.0,    1.0,      3.0, 37.0,    -1.0, -4097.0,
                                          4095.5, 123457.0, 1e7, 1e9 + 1, -1e9};

std::vector<RopeParams> all_params() {
  std::vector<RopeParams> out;
  const RopeScaling scalings[] = {RopeScaling::none, RopeScaling::linear,
                                  RopeScaling::ntk,  RopeScaling::dynamic_ntk,
                                  RopeScaling::yarn, RopeScaling::llama3};
  for (RopeScaling sc : scalings)
    for (RopeLayout lay : {RopeLayout::interleaved, RopeLayout::half_split})
      for (int dim : {2, 6, 64, 512})
        for (double frac : {1.0, 0.25}) {
          RopeParams p;
          p.head_dim = dim;
          p.rotary_fraction = frac;
          p.layout = lay;
          p.scaling = sc;
          p.factor = 8.0;
          p.original_context = 2048;
          p.current_length = 50000;
          p.base = dim == 6 ? 2.0 : 500000.0;
          out.push_back(p);
        }
  RopeParams yarn_t;  // YaRN with an explicit temperature
  yarn_t.scaling = RopeScaling::yarn;
  yarn_t.yarn_attention_factor = 1.7;
  yarn_t.factor = 32;
  out.push_back(yarn_t);
  return out;
}

}  // namespace

TEST_CASE("RopeTable equals rope_apply and rope_apply_inverse", "[rope][rope_table]") {
  unsigned seed = 1;
  for (const RopeParams& p : all_params()) {
    for (bool temp : {false, true}) {
      INFO(describe(p, temp));
      const RowMatrix x = random_rows(static_cast<int>(kTablePositions.size()), p.head_dim, seed++);
      const RopeTable table(p, kTablePositions, temp);
      REQUIRE(table.rows() == static_cast<int>(kTablePositions.size()));
      REQUIRE(table.pairs() == rope_num_pairs(p));
      CHECK((table.inv_freq() - rope_inv_freq(p)).cwiseAbs().maxCoeff() == 0.0);
      const RowMatrix direct = rope_apply(p, x, kTablePositions, temp);
      const RowMatrix direct_inv = rope_apply_inverse(p, x, kTablePositions, temp);
      CHECK((table.applied(x) - direct).cwiseAbs().maxCoeff() <= kTol);
      CHECK((table.applied_inverse(x) - direct_inv).cwiseAbs().maxCoeff() <= kTol);
      RowMatrix in_place = x;
      table.apply(in_place);
      CHECK((in_place - direct).cwiseAbs().maxCoeff() <= kTol);
      // Dims past R are left alone.
      const int R = rope_rotary_dim(p);
      if (R < p.head_dim)
        CHECK((in_place.rightCols(p.head_dim - R) - x.rightCols(p.head_dim - R))
                  .cwiseAbs()
                  .maxCoeff() == 0.0);
    }
  }
}

TEST_CASE("RopeTable: inverse after forward is the identity, norms are kept",
          "[rope][rope_table]") {
  unsigned seed = 100;
  for (const RopeParams& p : all_params()) {
    INFO(describe(p, false));
    const RowMatrix x = random_rows(static_cast<int>(kTablePositions.size()), p.head_dim, seed++);
    const RopeTable table(p, kTablePositions);
    RowMatrix y = x;
    table.apply(y);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      INFO("position " << kTablePositions[r]);
      CHECK(std::abs(y.row(r).norm() - x.row(r).norm()) <= 1e-13);
    }
    table.apply_inverse(y);
    CHECK((y - x).cwiseAbs().maxCoeff() <= 1e-14);
    // With YaRN's scaled tables inverse(apply(x)) = mscale^2 x (the pitfall rope.hpp names).
    const RopeTable scaled(p, kTablePositions, true);
    RowMatrix z = x;
    scaled.apply(z);
    scaled.apply_inverse(z);
    const double m2 = rope_attention_scale(p) * rope_attention_scale(p);
    const int R = rope_rotary_dim(p);
    CHECK((z.leftCols(R) - m2 * x.leftCols(R)).cwiseAbs().maxCoeff() <= 1e-13);
  }
}

TEST_CASE("RopeTable rotates row blocks of wider matrices (one head of many)",
          "[rope][rope_table]") {
  RopeParams p;
  p.head_dim = 8;
  p.layout = RopeLayout::interleaved;
  const int heads = 3, T = 5;
  const RowMatrix x = random_rows(T, heads * p.head_dim, 7);
  const RopeTable table = RopeTable::range(p, 10.0, T);
  REQUIRE(table.positions() == std::vector<double>({10, 11, 12, 13, 14}));
  RowMatrix y = x;
  for (int h = 0; h < heads; ++h) table.apply(y.middleCols(h * p.head_dim, p.head_dim));
  for (int h = 0; h < heads; ++h) {
    const RowMatrix block = x.middleCols(h * p.head_dim, p.head_dim);
    const RowMatrix want = rope_apply(p, block, table.positions());
    CHECK((y.middleCols(h * p.head_dim, p.head_dim) - want).cwiseAbs().maxCoeff() <= kTol);
  }
  // Rows 2..3 of the table applied to a 2-row block: positions 12 and 13.
  RowMatrix two = x.topRows(2).leftCols(p.head_dim);
  table.apply(two, 2);
  const RowMatrix want = rope_apply(p, RowMatrix(x.topRows(2).leftCols(p.head_dim)), {12.0, 13.0});
  CHECK((two - want).cwiseAbs().maxCoeff() <= kTol);
}

TEST_CASE("RopeTable::set_positions equals a table built for the new positions",
          "[rope][rope_table]") {
  RopeParams p;
  p.scaling = RopeScaling::llama3;
  p.base = 500000;
  RopeTable t(p, {1.0, 2.0});
  t.set_positions(kTablePositions);
  const RopeTable fresh(p, kTablePositions);
  CHECK((t.cos() - fresh.cos()).cwiseAbs().maxCoeff() == 0.0);
  CHECK((t.sin() - fresh.sin()).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("RopeTable rejects what rope_apply rejects, with the same message",
          "[rope][rope_table]") {
  auto same_error = [](const RopeParams& p) {
    std::string direct, table;
    try {
      // A RowMatrix and a std::vector: a bare Zero(...) and {0.0} pick the VectorXd overload,
      // whose 1 x n assignment Eigen's assertions refuse (the sanitize tree keeps them on).
      const RowMatrix x = RowMatrix::Zero(1, std::max(2, p.head_dim));
      rope_apply(p, x, std::vector<double>{0.0});
    } catch (const InputError& e) {
      direct = e.what();
    }
    try {
      RopeTable t(p, {0.0});
    } catch (const InputError& e) {
      table = e.what();
    }
    INFO("rope_apply: " << direct << "\ntable: " << table);
    CHECK(!direct.empty());
    CHECK(direct == table);
  };
  RopeParams p;
  p.head_dim = 7;  // odd
  same_error(p);
  p = {};
  p.head_dim = 1024;  // out of range
  same_error(p);
  p = {};
  p.base = 1.0;
  same_error(p);
  p = {};
  p.factor = 0.5;
  same_error(p);
  p = {};
  p.yarn_beta_fast = 0.5;  // below beta_slow
  same_error(p);
  p = {};
  p.llama3_high_freq_factor = 0.5;
  same_error(p);
  p = {};
  p.rotary_fraction = 0.0;
  same_error(p);

  // Shape errors name the numbers, as rope_apply's do.
  RopeParams ok;
  ok.head_dim = 8;
  const RopeTable t(ok, {0.0, 1.0});
  CHECK_THROWS_WITH(t.applied(RowMatrix::Zero(2, 6)), "x has 6 columns but head_dim = 8");
  CHECK_THROWS_WITH(t.applied(RowMatrix::Zero(3, 8)), "x has 3 rows but 2 positions were given");
  RowMatrix block = RowMatrix::Zero(2, 8);
  CHECK_THROWS_AS(t.apply(block, 1), InputError);
  CHECK_THROWS_WITH(rope_apply(ok, RowMatrix::Zero(3, 8), {0.0, 1.0}),
                    "x has 3 rows but 2 positions were given");
}
