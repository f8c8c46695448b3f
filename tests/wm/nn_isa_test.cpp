// The world model's layer kernels in their two builds (plain x86-64 and AVX2+FMA, chosen at
// run time by core/nn/layers.cpp) compute the same thing: each kernel of both tables on the
// same inputs agrees to float rounding (FMA and Eigen's wider blocks change only the last
// bits), and the dispatcher picks the AVX2 build exactly when the CPU has AVX2 and FMA.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/nn/layers.hpp"
#include "core/nn/layers_kernels.hpp"
#include "tests/wm/grad_check.hpp"

using poslab::nn::AttnGroup;
using poslab::nn::LayerKernels;
using poslab::wm::test::test_values;

namespace {

#ifdef POSLAB_NN_AVX2  // the helpers exist only where both builds are linked
bool cpu_has_avx2_fma() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// max |a - b| / (1 + max |a|): both builds' outputs, relative to their size.
double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(static_cast<double>(a[i]) - b[i]));
    m = std::max(m, std::abs(static_cast<double>(a[i])));
  }
  return d / (1 + m);
}

std::vector<float> values(int64_t n, uint64_t seed) {
  const auto v = test_values(n, seed);
  return {v.begin(), v.end()};
}

// Runs `fn(kernels, out)` for both builds from the same starting `out` and compares.
template <class Fn>
void agree(const char* kernel, const std::vector<float>& start, Fn fn) {
  const LayerKernels<float> plain = poslab::nn_generic::layer_kernels<float>();
  const LayerKernels<float> avx2 = poslab::nn_avx2::layer_kernels<float>();
  std::vector<float> a = start, b = start;
  fn(plain, a);
  fn(avx2, b);
  const double d = max_diff(a, b);
  INFO(kernel << ": plain vs avx2+fma relative difference " << d);
  CHECK(d < 1e-5);
}
#endif

}  // namespace

TEST_CASE("layer kernels: the AVX2+FMA build agrees with the plain build", "[wm][nn]") {
#ifndef POSLAB_NN_AVX2
  REQUIRE(std::string(poslab::nn::layers_isa()) == "generic");
  WARN("built with POSLAB_WM_AVX2=OFF: only the plain build exists");
#else
  REQUIRE(std::string(poslab::nn::layers_isa()) == (cpu_has_avx2_fma() ? "avx2+fma" : "generic"));
  if (!cpu_has_avx2_fma()) {
    WARN("this CPU has no AVX2 + FMA: the AVX2 build cannot run here");
    return;
  }
  const int M = 37, I = 48, O = 40, C = 48, H = 4, D = 16, E = H * D, L = 9;
  const auto x = values(M * I, 1), w = values(O * I, 2), b = values(O, 3), dy = values(M * O, 4);
  agree("linear_forward_rows", std::vector<float>(M * O), [&](const auto& k, auto& out) {
    k.linear_forward_rows(out.data(), x.data(), w.data(), b.data(), 0, M, I, O);
  });
  agree("linear_backward_din_rows", values(M * I, 5), [&](const auto& k, auto& din) {
    k.linear_backward_din_rows(din.data(), dy.data(), w.data(), 0, M, I, O);
  });
  agree("linear_backward_dw_rows", values(O * I + O, 6), [&](const auto& k, auto& g) {
    k.linear_backward_dw_rows(g.data(), g.data() + O * I, dy.data(), x.data(), M, I, O, 0, O);
  });
  agree("linear_forward_p_rows", std::vector<float>(M * O), [&](const auto& k, auto& out) {
    k.linear_forward_p_rows(out.data(), x.data(), w.data(), b.data(), 0, M, I, O);
  });
  const auto lw = values(C, 7), lb = values(C, 8);
  agree("layernorm_forward_rows", std::vector<float>(M * C + 2 * M), [&](const auto& k, auto& o) {
    k.layernorm_forward_rows(o.data(), o.data() + M * C, o.data() + M * C + M, x.data(), lw.data(),
                             lb.data(), 0, M, C, 1e-5f);
  });
  const auto z = values(M * I, 9);
  agree("gelu_forward", std::vector<float>(M * I),
        [&](const auto& k, auto& o) { k.gelu_forward(o.data(), z.data(), M * I); });
  agree("gelu_backward", values(M * I, 10),
        [&](const auto& k, auto& o) { k.gelu_backward(o.data(), x.data(), z.data(), M * I); });
  agree("silu_forward", std::vector<float>(M * I),
        [&](const auto& k, auto& o) { k.silu_forward(o.data(), z.data(), M * I); });
  std::vector<float> cs(8 * D / 2), sn(8 * D / 2);
  for (int p = 0; p < 8; ++p)
    for (int i = 0; i < D / 2; ++i) {
      const double a = p * std::pow(10000.0, -2.0 * i / D);
      cs[p * D / 2 + i] = static_cast<float>(std::cos(a));
      sn[p * D / 2 + i] = static_cast<float>(std::sin(a));
    }
  std::vector<int> pos(L);
  for (int i = 0; i < L; ++i) pos[i] = i % 8;
  agree("rope_forward", values(L * 3 * E, 11), [&](const auto& k, auto& q) {
    k.rope_forward(q.data(), L, 3 * E, 0, H, D, cs.data(), sn.data(), pos.data());
  });
  const auto qkv = values(L * 3 * E, 12), bias = values(L * L * H, 13), dout = values(L * E, 14);
  const AttnGroup g{0, 1, L};
  agree("attention_forward", std::vector<float>(L * E + H * L * L), [&](const auto& k, auto& o) {
    k.attention_forward(o.data(), o.data() + L * E, qkv.data(), E, H, g, true, nullptr,
                        bias.data());
  });
  agree("attention_decode", std::vector<float>(D + L), [&](const auto& k, auto& o) {
    std::vector<float> scores(L);  // keys transposed: a (D, L) block of qkv read as such
    k.attention_decode(o.data(), o.data() + D, qkv.data(), qkv.data() + E, L, qkv.data() + 2 * E,
                       3 * E, L, D, 0.25f, scores.data());
  });
  std::vector<float> probs(H * L * L), att(L * E);
  poslab::nn_generic::layer_kernels<float>().attention_forward(att.data(), probs.data(), qkv.data(),
                                                               E, H, g, true, nullptr, bias.data());
  agree("attention_backward", std::vector<float>(L * 3 * E + L * L * H),
        [&](const auto& k, auto& o) {
          std::vector<float> dp(L);
          k.attention_backward(o.data(), o.data() + L * 3 * E, dout.data(), probs.data(),
                               qkv.data(), E, H, g, dp.data());
        });
#endif
}
