// The world model's layers (layers.hpp): the plain build of the kernels and the choice
// between it and the AVX2+FMA build (layers_avx2.cpp) at run time, so one binary runs on
// any x86-64 and is fast where the CPU allows; the split of rows over threads.
#include "core/nn/layers.hpp"

#include <Eigen/Dense>
#include <vector>

#include "core/nn/layers_kernels.hpp"
#include "core/nn/parallel.hpp"

#define POSLAB_NN_NS poslab::nn_generic
#define POSLAB_EIGEN Eigen
#include "core/nn/layers_body.ipp"

namespace poslab::nn {
namespace {

// Rows per thread below which splitting costs more than it saves.
constexpr int64_t kMinRows = 32;

bool layers_cpu_has_avx2() {
#ifdef POSLAB_NN_AVX2
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

template <class S>
const LayerKernels<S>& kernels() {
#ifdef POSLAB_NN_AVX2
  static const LayerKernels<S> k =
      layers_cpu_has_avx2() ? nn_avx2::layer_kernels<S>() : nn_generic::layer_kernels<S>();
#else
  static const LayerKernels<S> k = nn_generic::layer_kernels<S>();
#endif
  return k;
}

}  // namespace

const char* layers_isa() {
  return layers_cpu_has_avx2() ? "avx2+fma" : "generic";
}

template <class S>
void linear_forward(S* out, const S* in, const S* w, const S* b, int64_t M, int I, int O,
                    int threads) {
  const auto f = kernels<S>().linear_forward_rows;
  parallel_for(
      threads, M, [&](int64_t r0, int64_t r1) { f(out, in, w, b, r0, r1, I, O); }, kMinRows);
}

template <class S>
void linear_forward_p(S* out, const S* in, const S* wp, const S* b, int64_t M, int I, int O) {
  kernels<S>().linear_forward_p_rows(out, in, wp, b, 0, M, I, O);
}

template <class S>
void linear_forward(S* out, const S* in, WeightsArg<S> W, size_t w, size_t b, int64_t M, int I,
                    int O, int threads) {
  if (W.Pp)
    linear_forward_p(out, in, W.Pp + w, W.P + b, M, I, O);
  else
    linear_forward(out, in, W.P + w, W.P + b, M, I, O, threads);
}

template <class S>
void linear_backward(S* din, S* dw, S* db, const S* dout, const S* in, const S* w, int64_t M, int I,
                     int O, int threads) {
  const LayerKernels<S>& k = kernels<S>();
  if (din)
    parallel_for(
        threads, M,
        [&](int64_t r0, int64_t r1) { k.linear_backward_din_rows(din, dout, w, r0, r1, I, O); },
        kMinRows);
  parallel_for(
      threads, O,
      [&](int64_t o0, int64_t o1) { k.linear_backward_dw_rows(dw, db, dout, in, M, I, O, o0, o1); },
      8);
}

template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* in, const S* w, const S* b, int64_t M,
                       int C, S eps, int threads) {
  const auto f = kernels<S>().layernorm_forward_rows;
  parallel_for(
      threads, M, [&](int64_t r0, int64_t r1) { f(out, mean, rstd, in, w, b, r0, r1, C, eps); },
      kMinRows);
}

template <class S>
void layernorm_backward(S* din, S* dw, S* db, const S* dout, const S* in, const S* mean,
                        const S* rstd, const S* w, int64_t M, int C, int threads) {
  const LayerKernels<S>& k = kernels<S>();
  parallel_for(
      threads, M,
      [&](int64_t r0, int64_t r1) {
        k.layernorm_backward_din_rows(din, dout, in, mean, rstd, w, r0, r1, C);
      },
      kMinRows);
  parallel_for(
      threads, C,
      [&](int64_t c0, int64_t c1) {
        k.layernorm_backward_dw_cols(dw, db, dout, in, mean, rstd, M, C, c0, c1);
      },
      16);
}

template <class S>
void gelu_forward(S* out, const S* in, int64_t n) {
  kernels<S>().gelu_forward(out, in, n);
}
template <class S>
void gelu_backward(S* din, const S* dout, const S* in, int64_t n) {
  kernels<S>().gelu_backward(din, dout, in, n);
}
template <class S>
void silu_forward(S* out, const S* in, int64_t n) {
  kernels<S>().silu_forward(out, in, n);
}
template <class S>
void silu_backward(S* din, const S* dout, const S* in, int64_t n) {
  kernels<S>().silu_backward(din, dout, in, n);
}

template <class S>
void rope_forward(S* x, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                  const int* pos) {
  kernels<S>().rope_forward(x, M, ld, col0, H, D, cs, sn, pos);
}
template <class S>
void rope_backward(S* dx, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                   const int* pos) {
  kernels<S>().rope_backward(dx, M, ld, col0, H, D, cs, sn, pos);
}

template <class S>
void attention_forward(S* out, S* probs, const S* qkv, int E, int H, AttnGroup g, bool causal,
                       const uint8_t* key_visible, const S* bias) {
  kernels<S>().attention_forward(out, probs, qkv, E, H, g, causal, key_visible, bias);
}
template <class S>
void attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                        int H, AttnGroup g) {
  S dp_stack[512];
  std::vector<S> dp_heap(g.len > 512 ? g.len : 0);
  S* dp = g.len > 512 ? dp_heap.data() : dp_stack;
  kernels<S>().attention_backward(dqkv, dbias, dout, probs, qkv, E, H, g, dp);
}

template <class S>
void attention_decode(S* out, S* probs, const S* q, const S* kt, int64_t ldk, const S* v,
                      int64_t ld, int L, int D, S scale, S* scores) {
  kernels<S>().attention_decode(out, probs, q, kt, ldk, v, ld, L, D, scale, scores);
}

#define POSLAB_NN_INSTANTIATE(S)                                                                  \
  template void linear_forward<S>(S*, const S*, const S*, const S*, int64_t, int, int, int);      \
  template void linear_forward_p<S>(S*, const S*, const S*, const S*, int64_t, int, int);         \
  template void linear_forward<S>(S*, const S*, const Weights<S>&, size_t, size_t, int64_t, int,  \
                                  int, int);                                                      \
  template void attention_decode<S>(S*, S*, const S*, const S*, int64_t, const S*, int64_t, int,  \
                                    int, S, S*);                                                  \
  template void linear_backward<S>(S*, S*, S*, const S*, const S*, const S*, int64_t, int, int,   \
                                   int);                                                          \
  template void layernorm_forward<S>(S*, S*, S*, const S*, const S*, const S*, int64_t, int, S,   \
                                     int);                                                        \
  template void layernorm_backward<S>(S*, S*, S*, const S*, const S*, const S*, const S*,         \
                                      const S*, int64_t, int, int);                               \
  template void gelu_forward<S>(S*, const S*, int64_t);                                           \
  template void gelu_backward<S>(S*, const S*, const S*, int64_t);                                \
  template void silu_forward<S>(S*, const S*, int64_t);                                           \
  template void silu_backward<S>(S*, const S*, const S*, int64_t);                                \
  template void rope_forward<S>(S*, int64_t, int64_t, int, int, int, const S*, const S*,          \
                                const int*);                                                      \
  template void rope_backward<S>(S*, int64_t, int64_t, int, int, int, const S*, const S*,         \
                                 const int*);                                                     \
  template void attention_forward<S>(S*, S*, const S*, int, int, AttnGroup, bool, const uint8_t*, \
                                     const S*);                                                   \
  template void attention_backward<S>(S*, S*, const S*, const S*, const S*, int, int, AttnGroup);

POSLAB_NN_INSTANTIATE(float)
POSLAB_NN_INSTANTIATE(double)

}  // namespace poslab::nn
