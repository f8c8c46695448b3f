// Pieces of the world model shared by the training forward/backward (world_model.cpp) and
// incremental decoding (wm_decode.cpp): tensor offsets by role, the state and action
// encoders with their kept activations, and the RoPE tables. Internal to core/wm.
//
// Legend as in world_model.hpp; K = number of token rows being encoded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/nn/attention.hpp"
#include "core/nn/blocks.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

inline constexpr size_t kNoTensor = static_cast<size_t>(-1);

// Offsets of every tensor in the parameter (and gradient) allocation, by role.
struct WmOffsets {
  size_t in_w, in_b, gate_w, gate_b, value_w, value_b, out_w, out_b, sln_w, sln_b;
  size_t emb_alive, emb_team, emb_fired;
  size_t a_power, a_turn, a_shoot, a_proj_w, a_proj_b;
  size_t slot, teamid, type, pos = kNoTensor;  // pos: absolute variant only
  struct Block {
    nn::AttnOffsets attn;  // ln1, attn.qkv, attn.proj
    size_t rb1_w = kNoTensor, rb1_b = kNoTensor, rb2_w = kNoTensor, rb2_b = kNoTensor;  // spatial
    nn::MlpOffsets mlp;  // ln2, mlp.fc1, mlp.fc2
  };
  std::vector<Block> blocks;
  size_t lnf_w, lnf_b, act_w, act_b, st_w, st_b, u_w, u_b, v_w, v_b;
};
WmOffsets wm_offsets(const WmConfig& c, const ParamLayout& layout);

// The 108 Fourier features of K state tokens: feats (K, 108) from tokens (K, 15).
template <class S>
void wm_state_features(S* feats, const float* tokens, int64_t K);

// State encoder activations for K rows (docs section 3).
template <class S>
struct StateEncoderActs {
  std::vector<S> feats;       // (K, 108)
  std::vector<S> h0;          // (K, E)
  std::vector<S> g, v;        // (K, 2E) gate and value pre-activations
  std::vector<S> sg;          // (K, 2E) silu(g)
  std::vector<S> u;           // (K, 2E) silu(g) * v
  std::vector<S> h1;          // (K, E) h0 + out(u)
  std::vector<S> out;         // (K, E) LayerNorm(h1), before the binary embeddings
  std::vector<S> mean, rstd;  // (K)
  // backward scratch: gradients of h1, h0 (K, E) and of u, g, v, silu(g) (K, 2E)
  std::vector<S> dh1, dh0, du, dg, dv, dsg;
  void resize(int64_t K, int E);
};
// out = LN(h0 + SwiGLU(h0)) for tokens (K, 15); binary embeddings are NOT added here.
template <class S>
void state_encoder_forward(StateEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                           nn::WeightsArg<S> W, const float* tokens, int64_t K, int threads);
// dout (K, E) is the gradient of a.out; parameter gradients are added into G.
template <class S>
void state_encoder_backward(StateEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                            const S* P, S* G, const S* dout, int64_t K, int threads);

// Action encoder: cat (K, 3Ea) of the three embeddings, pre (K, E); output silu(pre).
template <class S>
struct ActionEncoderActs {
  std::vector<S> cat;         // (K, 3 Ea)
  std::vector<S> pre;         // (K, E)
  std::vector<S> out;         // (K, E)
  std::vector<S> dpre, dcat;  // backward scratch (K, E), (K, 3 Ea)
  void resize(int64_t K, int E);
};
template <class S>
void action_encoder_forward(ActionEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                            nn::WeightsArg<S> W, const uint8_t* actions, int64_t K, int threads);
template <class S>
void action_encoder_backward(ActionEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                             const S* P, S* G, const S* dout, const uint8_t* actions, int64_t K,
                             int threads);

// Adds the per-token embeddings of docs section 3 to row x (E): slot, team id, type and,
// for S tokens (tok != null), the three binary embeddings; plus E_pos[position] when the
// model has a position table (position < 0: none).
template <class S>
void add_token_embeddings(S* x, const WmConfig& c, const WmOffsets& o, const S* P, int slot,
                          int type, const float* tok, int position);
// The gradient of the same: dx (E) added into G.
template <class S>
void add_token_embeddings_backward(const S* dx, const WmConfig& c, const WmOffsets& o, S* G,
                                   int slot, int type, const float* tok, int position);

// RoPE frequencies theta_i = base^(-2i/D), i = 0..D/2-1 (core/rope's formula without
// scaling; computed here so that no Eigen object crosses into these AVX2-built files).
std::vector<double> wm_rope_inv_freq(const WmConfig& c);
// RoPE tables for positions 0..P-1 (half-split, theta_i = base^(-2i/D), angles in double):
// cs, sn are (P, D/2).
template <class S>
void wm_rope_tables(std::vector<S>& cs, std::vector<S>& sn, const WmConfig& c, int P);

}  // namespace poslab::wm
