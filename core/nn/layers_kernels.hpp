// The world model's layer kernels as a table of function pointers, one table per build of
// layers_body.ipp (plain and AVX2+FMA); layers.cpp picks one at run time and splits the
// row-chunk kernels over threads. Shapes and meaning: layers.hpp.
#pragma once
#include <cstdint>

#include "core/nn/layers.hpp"

namespace poslab::nn {

template <class S>
struct LayerKernels {
  void (*linear_forward_rows)(S* out, const S* in, const S* w, const S* b, int64_t r0, int64_t r1,
                              int I, int O);
  void (*linear_forward_p_rows)(S* out, const S* in, const S* wp, const S* b, int64_t r0,
                                int64_t r1, int I, int O);
  void (*linear_backward_din_rows)(S* din, const S* dout, const S* w, int64_t r0, int64_t r1, int I,
                                   int O);
  void (*linear_backward_dw_rows)(S* dw, S* db, const S* dout, const S* in, int64_t M, int I, int O,
                                  int64_t o0, int64_t o1);
  void (*layernorm_forward_rows)(S* out, S* mean, S* rstd, const S* in, const S* w, const S* b,
                                 int64_t r0, int64_t r1, int C, S eps);
  void (*layernorm_backward_din_rows)(S* din, const S* dout, const S* in, const S* mean,
                                      const S* rstd, const S* w, int64_t r0, int64_t r1, int C);
  void (*layernorm_backward_dw_cols)(S* dw, S* db, const S* dout, const S* in, const S* mean,
                                     const S* rstd, int64_t M, int C, int64_t c0, int64_t c1);
  void (*gelu_forward)(S* out, const S* in, int64_t n);
  void (*gelu_backward)(S* din, const S* dout, const S* in, int64_t n);
  void (*silu_forward)(S* out, const S* in, int64_t n);
  void (*silu_backward)(S* din, const S* dout, const S* in, int64_t n);
  void (*rope_forward)(S* x, int64_t M, int64_t ld, int col0, int H, int D, const S* cs,
                       const S* sn, const int* pos);
  void (*rope_backward)(S* dx, int64_t M, int64_t ld, int col0, int H, int D, const S* cs,
                        const S* sn, const int* pos);
  void (*attention_forward)(S* out, S* probs, const S* qkv, int E, int H, AttnGroup g, bool causal,
                            const uint8_t* key_visible, const S* bias);
  // dp: scratch of g.len values
  void (*attention_backward)(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                             int H, AttnGroup g, S* dp);
  void (*attention_decode)(S* out, S* probs, const S* q, const S* kt, int64_t ldk, const S* v,
                           int64_t ld, int L, int D, S scale, S* scores);
};

}  // namespace poslab::nn

namespace poslab::nn_generic {
template <class S>
nn::LayerKernels<S> layer_kernels();
}  // namespace poslab::nn_generic

namespace poslab::nn_avx2 {
template <class S>
nn::LayerKernels<S> layer_kernels();
}  // namespace poslab::nn_avx2
