// Gradient checks of every core/nn layer against central finite differences in double
// precision. Each check uses the loss sum(r * out) for a fixed random r, so the backward
// is called with dout = r; the relative error per input and parameter tensor is printed
// and bounded.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/nn/layers.hpp"
#include "core/nn/param_table.hpp"
#include "tests/wm/grad_check.hpp"

using namespace poslab::nn;
using poslab::wm::test::grad_rel_error;
using poslab::wm::test::numeric_grad;
using poslab::wm::test::test_values;

namespace {
constexpr double kBound =
    1e-6;  // central differences in double: truncation ~h^2, round-off ~1e-10/h

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

void report(const char* layer, const char* tensor, double err) {
  std::printf("grad check %-12s %-8s rel error %.3e\n", layer, tensor, err);
}

// Checks the analytic gradient `ana` of loss() with respect to x.
void check(const char* layer, const char* tensor, std::vector<double>& x,
           const std::vector<double>& ana, const std::function<double()>& loss) {
  const auto num = numeric_grad(x.data(), static_cast<int64_t>(x.size()), loss);
  const double err = grad_rel_error(ana.data(), num.data(), static_cast<int64_t>(x.size()));
  report(layer, tensor, err);
  INFO(layer << " " << tensor << " relative error " << err);
  CHECK(err <= kBound);
}
}  // namespace

TEST_CASE("linear layer gradients match finite differences", "[wm][nn]") {
  for (int threads : {1, 2}) {
    const int M = 7, I = 5, O = 6;
    auto x = test_values(M * I, 1), w = test_values(O * I, 2), b = test_values(O, 3);
    const auto r = test_values(M * O, 4);
    std::vector<double> y(M * O);
    auto loss = [&] {
      linear_forward(y.data(), x.data(), w.data(), b.data(), M, I, O, threads);
      return dot(y, r);
    };
    std::vector<double> dx(M * I), dw(O * I), db(O);
    loss();
    linear_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), M, I, O,
                    threads);
    INFO("threads " << threads);
    check("linear", "in", x, dx, loss);
    check("linear", "weight", w, dw, loss);
    check("linear", "bias", b, db, loss);
  }
}

TEST_CASE("layernorm gradients match finite differences", "[wm][nn]") {
  const int M = 5, C = 9;
  auto x = test_values(M * C, 5), w = test_values(C, 6), b = test_values(C, 7);
  const auto r = test_values(M * C, 8);
  std::vector<double> y(M * C), mean(M), rstd(M);
  auto loss = [&] {
    layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), M, C, 1e-5);
    return dot(y, r);
  };
  loss();
  // normalised rows: mean 0, biased variance 1 (before the gain and bias)
  std::vector<double> ones(C, 1.0), zeros(C, 0.0), yn(M * C);
  layernorm_forward(yn.data(), mean.data(), rstd.data(), x.data(), ones.data(), zeros.data(), M, C,
                    0.0);
  for (int m = 0; m < M; ++m) {
    double s = 0, s2 = 0;
    for (int c = 0; c < C; ++c) s += yn[m * C + c], s2 += yn[m * C + c] * yn[m * C + c];
    CHECK(std::abs(s / C) < 1e-12);
    CHECK(s2 / C == Approx(1.0).epsilon(1e-12));
  }
  loss();
  std::vector<double> dx(M * C), dw(C), db(C);
  layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), mean.data(), rstd.data(),
                     w.data(), M, C);
  check("layernorm", "in", x, dx, loss);
  check("layernorm", "weight", w, dw, loss);
  check("layernorm", "bias", b, db, loss);
}

TEST_CASE("activation gradients match finite differences", "[wm][nn]") {
  const int n = 40;
  auto x = test_values(n, 9);
  for (auto& v : x) v *= 4;  // cover the curved parts
  const auto r = test_values(n, 10);
  std::vector<double> y(n);
  auto gelu = [&] {
    gelu_forward(y.data(), x.data(), n);
    return dot(y, r);
  };
  auto silu = [&] {
    silu_forward(y.data(), x.data(), n);
    return dot(y, r);
  };
  std::vector<double> dx(n);
  gelu_backward(dx.data(), r.data(), x.data(), n);
  check("gelu", "in", x, dx, gelu);
  std::fill(dx.begin(), dx.end(), 0.0);
  silu_backward(dx.data(), r.data(), x.data(), n);
  check("silu", "in", x, dx, silu);
  // independent references: gelu(0) = 0, gelu(1) with the tanh form, silu(1) = sigmoid(1)
  double z[3] = {0.0, 1.0, -2.0}, out[3];
  gelu_forward(out, z, 3);
  CHECK(out[0] == 0.0);
  CHECK(out[1] == Approx(0.8411919906082768).epsilon(1e-12));
  silu_forward(out, z, 3);
  CHECK(out[1] == Approx(1.0 / (1.0 + std::exp(-1.0))).epsilon(1e-12));
}

TEST_CASE("rope rotation keeps norms and its backward is the inverse rotation", "[wm][nn]") {
  const int M = 4, H = 2, D = 6, ld = 3 * H * D, half = D / 2, P = 10;
  std::vector<double> cs(P * half), sn(P * half);
  for (int p = 0; p < P; ++p)
    for (int i = 0; i < half; ++i) {
      const double th = std::pow(10000.0, -2.0 * i / D);
      cs[p * half + i] = std::cos(p * th);
      sn[p * half + i] = std::sin(p * th);
    }
  const int pos[M] = {0, 3, 9, 5};
  auto x = test_values(M * ld, 11);
  const auto r = test_values(M * ld, 12);
  std::vector<double> y;
  auto loss = [&] {
    y = x;
    rope_forward(y.data(), M, ld, H * D, H, D, cs.data(), sn.data(), pos);
    return dot(y, r);
  };
  loss();
  for (int m = 0; m < M; ++m) {
    double n0 = 0, n1 = 0;
    for (int c = 0; c < ld; ++c)
      n0 += x[m * ld + c] * x[m * ld + c], n1 += y[m * ld + c] * y[m * ld + c];
    CHECK(n1 == Approx(n0).epsilon(1e-12));
  }
  std::vector<double> dx = r;
  rope_backward(dx.data(), M, ld, H * D, H, D, cs.data(), sn.data(), pos);
  check("rope", "in", x, dx, loss);
}

TEST_CASE("attention gradients match finite differences for every mask kind", "[wm][nn]") {
  const int E = 8, H = 2, L = 5;
  for (int kind = 0; kind < 4; ++kind) {
    // 0 causal, strided rows; 1 key mask + bias; 2 a fully masked group; 3 causal + mask
    const bool causal = kind == 0 || kind == 3;
    const AttnGroup g{kind == 0 ? 1 : 0, kind == 0 ? 2 : 1, L};
    const int64_t rows = g.row0 + (L - 1) * g.stride + 1;
    std::vector<uint8_t> vis = {1, 0, 1, 1, 0};
    if (kind == 2) vis.assign(L, 0);
    const uint8_t* visp = kind == 0 ? nullptr : vis.data();
    auto qkv = test_values(rows * 3 * E, 13 + kind);
    for (auto& v : qkv) v *= 2;
    auto bias = test_values(L * L * H, 17);
    const bool use_bias = kind == 1 || kind == 2;
    const auto r = test_values(rows * E, 19);
    std::vector<double> out(rows * E), probs(H * L * L);
    auto loss = [&] {
      attention_forward(out.data(), probs.data(), qkv.data(), E, H, g, causal, visp,
                        use_bias ? bias.data() : nullptr);
      double s = 0;
      for (int p = 0; p < L; ++p)
        for (int c = 0; c < E; ++c)
          s += out[(g.row0 + p * g.stride) * E + c] * r[(g.row0 + p * g.stride) * E + c];
      return s;
    };
    loss();
    // rows of probabilities sum to 1 (or are empty)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < L; ++i) {
        double s = 0;
        for (int j = 0; j < L; ++j) s += probs[(h * L + i) * L + j];
        const bool empty = kind == 2;
        CHECK(s == Approx(empty ? 0.0 : 1.0).margin(1e-12));
      }
    std::vector<double> dqkv(rows * 3 * E), dbias(L * L * H), dout(rows * E, 0.0);
    for (int p = 0; p < L; ++p)
      for (int c = 0; c < E; ++c)
        dout[(g.row0 + p * g.stride) * E + c] = r[(g.row0 + p * g.stride) * E + c];
    attention_backward(dqkv.data(), use_bias ? dbias.data() : nullptr, dout.data(), probs.data(),
                       qkv.data(), E, H, g);
    INFO("mask kind " << kind);
    const std::string name = "attn" + std::to_string(kind);
    check(name.c_str(), "qkv", qkv, dqkv, loss);
    if (use_bias) check(name.c_str(), "bias", bias, dbias, loss);
    if (kind == 2)
      for (double v : out) CHECK(v == 0.0);
  }
}

TEST_CASE("float activations (fast exp and tanh) match double references", "[wm][nn]") {
  const int n = 4001;
  std::vector<float> xf(n), yf(n), df(n, 0.0f), ones(n, 1.0f);
  std::vector<double> xd(n), yd(n), dd(n, 0.0), onesd(n, 1.0);
  for (int i = 0; i < n; ++i) xd[i] = xf[i] = -20.0f + 40.0f * i / (n - 1);
  double worst_gelu = 0, worst_silu = 0, worst_dgelu = 0, worst_dsilu = 0;
  gelu_forward(yf.data(), xf.data(), n);
  gelu_forward(yd.data(), xd.data(), n);
  for (int i = 0; i < n; ++i)
    worst_gelu = std::max(worst_gelu, std::abs(yf[i] - yd[i]) / std::max(1.0, std::abs(yd[i])));
  gelu_backward(df.data(), ones.data(), xf.data(), n);
  gelu_backward(dd.data(), onesd.data(), xd.data(), n);
  for (int i = 0; i < n; ++i) worst_dgelu = std::max(worst_dgelu, std::abs(df[i] - dd[i]));
  silu_forward(yf.data(), xf.data(), n);
  silu_forward(yd.data(), xd.data(), n);
  for (int i = 0; i < n; ++i)
    worst_silu = std::max(worst_silu, std::abs(yf[i] - yd[i]) / std::max(1.0, std::abs(yd[i])));
  std::fill(df.begin(), df.end(), 0.0f);
  std::fill(dd.begin(), dd.end(), 0.0);
  silu_backward(df.data(), ones.data(), xf.data(), n);
  silu_backward(dd.data(), onesd.data(), xd.data(), n);
  for (int i = 0; i < n; ++i) worst_dsilu = std::max(worst_dsilu, std::abs(df[i] - dd[i]));
  std::printf("float vs double: gelu %.1e dgelu %.1e silu %.1e dsilu %.1e\n", worst_gelu,
              worst_dgelu, worst_silu, worst_dsilu);
  CHECK(worst_gelu <= 1e-6);
  CHECK(worst_dgelu <= 5e-6);  // float rounding of the derivative at |z| ~ 20
  CHECK(worst_silu <= 1e-6);
  CHECK(worst_dsilu <= 1e-6);
}

TEST_CASE("the decoding kernels equal the training kernels they stand in for", "[wm][nn]") {
  // linear_forward_p over params_panels: full panels, a tail of O % 16 outputs, M % 4 rows
  poslab::nn::ParamLayout layout;
  layout.linear("a", 40, 9);  // 2 panels + 8 tail outputs
  layout.linear("b", 5, 33);  // tail only
  layout.add("table", {3, 4});
  const auto p = test_values(static_cast<int64_t>(layout.total), 31);
  const auto panels = params_panels(layout, p.data());
  const auto& table = layout.find("table");
  for (size_t i = 0; i < table.size; ++i)  // transposed (4, 3): row-major (r, c) -> (c, r)
    CHECK(panels[table.offset + (i % 4) * 3 + i / 4] == p[table.offset + i]);
  for (const char* name : {"a", "b"}) {
    const auto& w = layout.find(std::string(name) + ".weight");
    const auto& b = layout.find(std::string(name) + ".bias");
    const int O = w.shape[0], I = w.shape[1];
    for (int M : {1, 7, 8}) {
      const auto x = test_values(M * I, 32);
      std::vector<double> want(M * O), got(M * O);
      linear_forward(want.data(), x.data(), p.data() + w.offset, p.data() + b.offset, M, I, O);
      const Weights<double> W(p.data(), panels.data());
      linear_forward(got.data(), x.data(), W, w.offset, b.offset, M, I, O);
      for (int i = 0; i < M * O; ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));
    }
  }
  // attention_decode of the last token over a cache = the last row of causal attention
  for (int D : {16, 32, 6}) {
    const int H = 2, E = H * D, L = 7;
    const auto qkv = test_values(L * 3 * E, 33 + D);
    std::vector<double> out(L * E), probs(H * L * L);
    attention_forward(out.data(), probs.data(), qkv.data(), E, H, AttnGroup{0, 1, L}, true, nullptr,
                      static_cast<const double*>(nullptr));
    const int ldk = L + 3;  // keys transposed: (E, ldk), key j in column j
    std::vector<double> kt(E * ldk), v(L * E), o(E), pr(H * L), scores(L);
    for (int j = 0; j < L; ++j)
      for (int c = 0; c < E; ++c) {
        kt[c * ldk + j] = qkv[j * 3 * E + E + c];
        v[j * E + c] = qkv[j * 3 * E + 2 * E + c];
      }
    for (int h = 0; h < H; ++h)
      attention_decode(o.data() + h * D, pr.data() + h * L, qkv.data() + (L - 1) * 3 * E + h * D,
                       kt.data() + h * D * ldk, ldk, v.data() + h * D, E, L, D,
                       1.0 / std::sqrt(static_cast<double>(D)), scores.data());
    INFO("head dim " << D);
    for (int c = 0; c < E; ++c) CHECK(o[c] == Approx(out[(L - 1) * E + c]).margin(1e-12));
    for (int h = 0; h < H; ++h)
      for (int j = 0; j < L; ++j)
        CHECK(pr[h * L + j] == Approx(probs[(h * L + L - 1) * L + j]).margin(1e-12));
  }
}
