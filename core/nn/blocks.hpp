// The pieces a transformer is built of, over core/nn's layers (layers.hpp): the block's MLP
// half and the token cross-entropy, each a forward and a backward, shared by the world model
// (core/wm) and the language models (core/lm) so each model only declares its own layout.
//
// Legend: M = rows (tokens), E = width, F = MLP width (4E), V = classes (vocabulary).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/nn/layers.hpp"

namespace poslab::nn {

// ---- MLP half of a pre-norm block: xo = xmid + fc2(gelu(fc1(ln(xmid)))) ------------------
// Offsets of its tensors in the model's allocation (params and grads share them).
struct MlpOffsets {
  size_t ln_w, ln_b;    // (E), (E)
  size_t fc1_w, fc1_b;  // (F, E), (F)
  size_t fc2_w, fc2_b;  // (E, F), (E)
};
// What the forward keeps for the backward.
template <class S>
struct MlpActs {
  std::vector<S> ln, mean, rstd;  // (M, E), (M), (M)
  std::vector<S> fc, act;         // (M, F) pre-activation and GELU
};
// Backward scratch, kept between calls (allocating it each step costs page faults).
template <class S>
struct MlpScratch {
  std::vector<S> dact, dfc, dln;  // (M, F), (M, F), (M, E)
};
// xo (M, E) = xmid + MLP(xmid); W the model's parameters (and, decoding, their transposed
// copy: layers.hpp's Weights).
template <class S>
void mlp_forward(S* xo, MlpActs<S>& a, const S* xmid, WeightsArg<S> W, const MlpOffsets& o,
                 int64_t M, int E, int F, S eps, int threads);
// dx (M, E): in, the gradient of xo; out, the gradient of xmid (the residual plus the
// LayerNorm's). G (P) += the MLP's parameter gradients.
template <class S>
void mlp_backward(S* dx, S* G, MlpScratch<S>& s, const MlpActs<S>& a, const S* xmid, const S* P,
                  const MlpOffsets& o, int64_t M, int E, int F, int threads);

// ---- Cross-entropy of M rows of V logits against one target class per row ---------------
// losses (M) nats = logsumexp(z) - z[target]; dlogits (M, V) = scale * (softmax(z) - onehot),
// scale = 1/M for the gradient of the mean. Per row in S, max-subtracted.
template <class S>
void cross_entropy_forward(S* losses, S* dlogits, const S* logits, const uint8_t* targets,
                           int64_t M, int V, S scale, int threads);

}  // namespace poslab::nn
