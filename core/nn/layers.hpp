// Neural-network layers for the world model, the llm.c way: each layer is a forward and a
// backward function over plain row-major buffers, the forward keeps what the backward
// needs, and every backward ADDS into its gradient buffers (callers zero them). Templated
// on the scalar: float for use, double for the finite-difference gradient checks.
//
// Legend: M = rows (tokens), I = input width, O = output width, C = channels,
//         H = heads, D = head dim, L = sequence length of one attention group.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace poslab::nn {

// The instruction set the layer kernels run with: "avx2+fma" where the CPU has both (and
// the build is for x86-64), else "generic". Chosen once, at the first call.
const char* layers_isa();

// ---- Linear: out (M, O) = in (M, I) · wᵀ + b; w is (O, I) like torch.nn.Linear ----------
// b may be null (no bias). Rows are split over `threads`.
template <class S>
void linear_forward(S* out, const S* in, const S* w, const S* b, int64_t M, int I, int O,
                    int threads = 1);
// The same with the weight read from its panels, wp = panels of w (params_panels): for a
// few rows at a time (a dream step's 8), where a matrix product would re-pack the weight
// on every call. Same sums in another order: agrees with linear_forward to float rounding.
// Panels: the (O, I) weight as O / 16 panels (I, 16) of 16 outputs each, in order, then the
// last O % 16 outputs as one (I, O % 16) block: I * O values, like the weight itself.
inline constexpr int kPanel = 16;
template <class S>
void linear_forward_p(S* out, const S* in, const S* wp, const S* b, int64_t M, int I, int O);
// Where a forward reads its weights: the model's parameters P, and optionally Pp, a copy
// with every 2-D tensor in panels (params_panels). With Pp, Linear layers read their
// weight from it (linear_forward_p); everything else always reads P. Converts from P.
template <class S>
struct Weights {
  Weights(const S* p, const S* pp = nullptr) : P(p), Pp(pp) {}  // NOLINT: P converts
  const S* P;
  const S* Pp;
};
// Weights<S> as a parameter that takes no part in deducing S, so a plain const S* converts.
template <class S>
using WeightsArg = const std::type_identity_t<Weights<S>>&;
// out = in · wᵀ + b for the Linear whose weight and bias start at offsets w and b of W.
template <class S>
void linear_forward(S* out, const S* in, WeightsArg<S> W, size_t w, size_t b, int64_t M, int I,
                    int O, int threads = 1);
// din (M, I) += dout · w      (skipped when din is null)
// dw  (O, I) += doutᵀ · in
// db  (O)    += Σ_m dout      (skipped when db is null)
template <class S>
void linear_backward(S* din, S* dw, S* db, const S* dout, const S* in, const S* w, int64_t M, int I,
                     int O, int threads = 1);

// ---- LayerNorm over the last axis, biased variance, eps -------------------------------
// in, out (M, C); mean, rstd (M) kept for backward; w, b (C).
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* in, const S* w, const S* b, int64_t M,
                       int C, S eps, int threads = 1);
// din (M, C) +=, dw (C) +=, db (C) +=
template <class S>
void layernorm_backward(S* din, S* dw, S* db, const S* dout, const S* in, const S* mean,
                        const S* rstd, const S* w, int64_t M, int C, int threads = 1);

// ---- Elementwise activations: out (n) = f(in); din (n) += f'(in) · dout ----------------
// GELU, tanh form: 0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3))).
template <class S>
void gelu_forward(S* out, const S* in, int64_t n);
template <class S>
void gelu_backward(S* din, const S* dout, const S* in, int64_t n);
// SiLU: z sigmoid(z).
template <class S>
void silu_forward(S* out, const S* in, int64_t n);
template <class S>
void silu_backward(S* din, const S* dout, const S* in, int64_t n);

// ---- RoPE, half-split layout (pairs (i, i + D/2)) -----------------------------------
// x holds M rows of stride ld; each row has H heads of D values starting at column col0.
// Row m is rotated by +angle(pos[m]): cs/sn are (P_max, D/2) tables, cs[p*D/2 + i] =
// cos(p theta_i). rope_backward rotates by -angle (the gradient of a rotation).
template <class S>
void rope_forward(S* x, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                  const int* pos);
template <class S>
void rope_backward(S* dx, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                   const int* pos);

// ---- Multi-head attention over one group of L tokens ------------------------------------
// The group's token p lives at row row0 + p*stride of qkv (rows of 3E: [q | k | v], head h
// at columns h*D..) and of out (rows of E). probs (H, L, L) is kept for backward.
//   causal       token p sees keys p' <= p
//   key_visible  (L) or null: key p' is visible only if key_visible[p'] != 0
//   bias         (L, L, H) or null: added to the scaled score of (query, key, head)
// A query row with no visible key gets out = 0 and probs = 0 (no softmax on an empty row).
struct AttnGroup {
  int64_t row0 = 0;    // first row of the group
  int64_t stride = 1;  // rows between consecutive tokens of the group
  int len = 0;         // L
};
template <class S>
void attention_forward(S* out, S* probs, const S* qkv, int E, int H, AttnGroup g, bool causal,
                       const uint8_t* key_visible, const S* bias);
// dqkv (rows of 3E) +=; dbias (L, L, H) += when not null.
template <class S>
void attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                        int H, AttnGroup g);

// ---- Attention of one head of a new token over a KV cache (decoding) ------------------
// q (D): the head's query. kt: the L cached keys of the head transposed, D rows of stride
// ldk (row d holds coordinate d of every key; key j is column j). v: the L cached values
// of the head, rows of stride ld. The token's own key and value come last.
// out (D) = Σ_j softmax_j(q·k_j · scale) v_j; probs (L) the weights when not null;
// scores: scratch of L values. One head per call, so a caller can run the queries that
// read the same head's cache back to back, while it is in the nearest cache.
template <class S>
void attention_decode(S* out, S* probs, const S* q, const S* kt, int64_t ldk, const S* v,
                      int64_t ld, int L, int D, S scale, S* scores);

}  // namespace poslab::nn
