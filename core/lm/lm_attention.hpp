// Causal multi-head attention over one long window as matrix products. core/nn's
// attention_forward/backward loop over (query, key) pairs, made for the world model's groups
// of a few tokens; the length lab's windows are long (T = L = 128 for training, 8L = 1024 for
// evaluation), where that loop took over half of a training step. Here each head's Q·Kᵀ,
// P·V and their gradients are nn::linear_forward/backward products (the AVX2 GEMM build
// where the CPU has it) on contiguous copies of the head's q, k and v.
//
// Same contract as nn::attention_forward/backward with AttnGroup{0, 1, T}, causal, no key
// mask: T = window positions, E = width, H = heads, D = E/H.
//   qkv   (T, 3E) rows [q | k | v], head h at columns h*D.. of each part
//   out   (T, E)  written (=)
//   probs (H, T, T) written: row t sums to 1 over s <= t, 0 above the diagonal
//   bias  (T, T, H) or null: added to the scaled score of (query, key, head)
//   dqkv  (T, 3E) +=;  dbias (T, T, H) += when not null
#pragma once

namespace poslab::lm {

template <class S>
void lm_attention_forward(S* out, S* probs, const S* qkv, int E, int H, int T, const S* bias);
template <class S>
void lm_attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                           int H, int T);

}  // namespace poslab::lm
