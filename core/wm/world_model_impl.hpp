// The world model's activations and workspaces (WorldModelT<S>::Impl), shared by its forward
// (world_model.cpp) and backward (world_model_backward.cpp) passes; private to those two.
#pragma once
#include <cstdint>
#include <vector>

#include "core/nn/attention.hpp"
#include "core/nn/blocks.hpp"
#include "core/wm/wm_layers.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

// ---- Activations ---------------------------------------------------------------------

template <class S>
struct WorldModelT<S>::Impl {
  WmOffsets off;
  int threads = 0;
  int B = 0, T = 0;
  int64_t M = 0;   // B*T*2*N token rows
  int64_t Ms = 0;  // B*T*N state (and action) rows
  int64_t Mp = 0;  // B*T*N*N ordered pairs
  bool have_forward = false;
  int fstage = -1, bstage = -1;  // the next stage of a staged forward / backward, -1 none
  // inputs
  std::vector<float> tokens;     // (B, T, N, 15)
  std::vector<uint8_t> actions;  // (B, T, N, 3)
  std::vector<uint8_t> valid;    // (B, T)
  std::vector<uint8_t> alive;    // (B, T, N)
  std::vector<uint8_t> present;  // (B, T, N)
  std::vector<S> rel;            // (B, T, N, N, 12) features of step t
  std::vector<int> pos;          // (M) temporal position 2t + s of every row
  std::vector<S> rope_cs, rope_sn;
  int rope_len = 0;
  // encoders
  StateEncoderActs<S> senc;   // K = Ms
  ActionEncoderActs<S> aenc;  // K = Ms
  // residual stream: xs[l] is the input of block l, xs[L] the output of the last
  std::vector<std::vector<S>> xs;  // L+1 of (M, E)
  struct Layer {
    // ln1, qkv (q and k rotated: RoPE variant, temporal), probs: temporal (B*N, H, 2T, 2T),
    // spatial (B*T*2, H, N, N)
    nn::AttnActs<S> attn;
    std::vector<S> xmid;            // (M, E) after the attention residual
    nn::MlpActs<S> mlp;             // ln2 (M, E), fc1 and GELU (M, 4E) of the MLP half
    std::vector<S> rb_pre, rb_act;  // spatial: (Mp, 64)
    std::vector<S> rb;              // spatial: (Mp, H) bias per (b, t, i, j, h)
  };
  std::vector<Layer> layers;
  std::vector<S> lnf, mf, rf;  // (M, E), (M), (M)
  std::vector<S> zs, za;       // (Ms, E) final-LN rows of S and A tokens
  std::vector<S> logits;       // (Ms, 12)
  std::vector<S> head_s;       // (Ms, 15) state head output before scale and residual
  std::vector<float> base;     // (Ms, 15) residual base of the state head (data)
  std::vector<S> scale;        // (15) state_scale, ones when the config has none
  double loss_w[kTokenDim];    // (15) state-loss weight: 1/σ² (state_loss sigma) or 1
  std::vector<S> spred;        // (Ms, 15)
  std::vector<S> U, V;         // (Ms, 12R)
  std::vector<S> rpred;        // (Mp, 12)
  // loss gradients, computed with the loss
  std::vector<S> dlogits, dspred, drel;
  // backward scratch, kept between calls (allocating it each step costs page faults)
  std::vector<S> dU, dV, dzs, dza, dz, dx, drb, dh, dpre;
  nn::AttnScratch<S> attn;
  nn::MlpScratch<S> mlp;
  std::vector<S> dsenc, daenc, dhead;
  WmLoss loss;

  int64_t row_s(int64_t k) const { return (k / kShips) * 2 * kShips + k % kShips; }
  int64_t row_a(int64_t k) const { return row_s(k) + kShips; }
};

}  // namespace poslab::wm
