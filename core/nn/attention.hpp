// The attention layer of the model kit, shared by the world model (core/wm) and the language
// models (core/lm): the attention half of a pre-norm block (LayerNorm, qkv, RoPE of q and k,
// the model's attention, output projection, residual) with its backward, and the causal
// attention of one long window as matrix products. What differs between the models by
// design is a parameter: the RoPE tables (none, the world model's, the length lab's scaled
// ones) and the attention over qkv (the world model's groups with nn::attention_forward of
// layers.hpp, a language model's windows with causal_attention_forward and its ALiBi or T5
// bias from core/position).
//
// Legend: M = rows (tokens), E = width, H = heads, D = E/H, T = positions of one window.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace poslab::nn {

// ---- Causal multi-head attention over one window of T positions, as products -----------
// Each head's Q·Kᵀ, P·V and their gradients are nn::linear_forward/backward products (the
// AVX2 GEMM build where the CPU has it) on contiguous copies of the head's q, k and v; the
// pairwise loop of nn::attention_forward, made for the world model's groups of a few tokens,
// took over half of a language model's training step at T = 128. Same contract as
// nn::attention_forward with AttnGroup{0, 1, T}, causal, no key mask:
//   qkv   (T, 3E) rows [q | k | v], head h at columns h*D.. of each part
//   out   (T, E)  written (=)
//   probs (H, T, T) written: row t sums to 1 over s <= t, 0 above the diagonal
//   bias  (T, T, H) or null: added to the scaled score of (query, key, head)
//   dqkv  (T, 3E) +=;  dbias (T, T, H) += when not null
template <class S>
void causal_attention_forward(S* out, S* probs, const S* qkv, int E, int H, int T, const S* bias);
template <class S>
void causal_attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv,
                               int E, int H, int T);

// ---- Attention half of a pre-norm block: xmid = x + proj(attn(rope(qkv(ln(x))))) ---------
// Offsets of its tensors in the model's allocation (params and grads share them).
struct AttnOffsets {
  size_t ln_w, ln_b;      // (E), (E)
  size_t qkv_w, qkv_b;    // (3E, E), (3E)
  size_t proj_w, proj_b;  // (E, E), (E)
};
// What the forward keeps for the backward.
template <class S>
struct AttnActs {
  std::vector<S> ln, mean, rstd;  // (M, E), (M), (M)
  std::vector<S> qkv;             // (M, 3E) rows [q | k | v]; q and k rotated with RoPE
  std::vector<S> att;             // (M, E) attention output before the projection
  std::vector<S> probs;           // the attention weights, laid out by the model's core
};
// Backward scratch, kept between calls.
template <class S>
struct AttnScratch {
  std::vector<S> dln, datt, dqkv;  // (M, E), (M, E), (M, 3E)
};
// RoPE of q and k (half-split, nn::rope_forward): row r turned by row pos[r] of the tables
// cs, sn (P, D/2). cs == null: no rotation.
template <class S>
struct AttnRope {
  const S* cs = nullptr;
  const S* sn = nullptr;
  const int* pos = nullptr;  // (M)
};
// The model's attention over a.qkv: the forward writes a.att and a.probs (sizing probs); the
// backward adds the gradient of qkv (M, 3E) into dqkv from datt (M, E), the gradient of a.att.
template <class S>
using AttnCoreForward = std::function<void(AttnActs<S>& a)>;
template <class S>
using AttnCoreBackward = std::function<void(S* dqkv, const S* datt, const AttnActs<S>& a)>;

// xmid (M, E) = x + attention half of x; P the model's parameters.
template <class S>
void attn_forward(S* xmid, AttnActs<S>& a, const S* x, const S* P, const AttnOffsets& o, int64_t M,
                  int E, int H, S eps, const AttnRope<S>& rope,
                  const std::type_identity_t<AttnCoreForward<S>>& core, int threads);
// dx (M, E): in, the gradient of xmid; out, the gradient of x (the residual plus the
// LayerNorm's). G (P) += the half's parameter gradients.
template <class S>
void attn_backward(S* dx, S* G, AttnScratch<S>& s, const AttnActs<S>& a, const S* x, const S* P,
                   const AttnOffsets& o, int64_t M, int E, int H, const AttnRope<S>& rope,
                   const std::type_identity_t<AttnCoreBackward<S>>& core, int threads);

}  // namespace poslab::nn
