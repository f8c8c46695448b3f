// Shared pieces of the world model: tensor offsets, Fourier features, state and action
// encoders (forward and backward), token embeddings and RoPE tables (wm_layers.hpp).
#include "core/wm/wm_layers.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "core/nn/layers.hpp"

namespace poslab::wm {

using namespace poslab::nn;

WmOffsets wm_offsets(const WmConfig& c, const ParamLayout& L) {
  auto at = [&](const std::string& n) { return L.find(n).offset; };
  WmOffsets o;
  o.in_w = at("state_enc.in.weight"), o.in_b = at("state_enc.in.bias");
  o.gate_w = at("state_enc.gate.weight"), o.gate_b = at("state_enc.gate.bias");
  o.value_w = at("state_enc.value.weight"), o.value_b = at("state_enc.value.bias");
  o.out_w = at("state_enc.out.weight"), o.out_b = at("state_enc.out.bias");
  o.sln_w = at("state_enc.ln.weight"), o.sln_b = at("state_enc.ln.bias");
  o.emb_alive = at("emb.alive"), o.emb_team = at("emb.team"), o.emb_fired = at("emb.fired");
  o.a_power = at("action_enc.power"), o.a_turn = at("action_enc.turn");
  o.a_shoot = at("action_enc.shoot");
  o.a_proj_w = at("action_enc.proj.weight"), o.a_proj_b = at("action_enc.proj.bias");
  o.slot = at("emb.slot"), o.teamid = at("emb.teamid"), o.type = at("emb.type");
  if (c.position == WmPosition::absolute) o.pos = at("emb.pos");
  for (int l = 0; l < c.layers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    WmOffsets::Block k;
    k.attn = {at(b + "ln1.weight"),    at(b + "ln1.bias"),         at(b + "attn.qkv.weight"),
              at(b + "attn.qkv.bias"), at(b + "attn.proj.weight"), at(b + "attn.proj.bias")};
    if (!wm_is_temporal(l)) {
      k.rb1_w = at(b + "relbias.fc1.weight"), k.rb1_b = at(b + "relbias.fc1.bias");
      k.rb2_w = at(b + "relbias.fc2.weight"), k.rb2_b = at(b + "relbias.fc2.bias");
    }
    k.mlp = {at(b + "ln2.weight"),   at(b + "ln2.bias"),       at(b + "mlp.fc1.weight"),
             at(b + "mlp.fc1.bias"), at(b + "mlp.fc2.weight"), at(b + "mlp.fc2.bias")};
    o.blocks.push_back(k);
  }
  o.lnf_w = at("ln_f.weight"), o.lnf_b = at("ln_f.bias");
  o.act_w = at("head.action.weight"), o.act_b = at("head.action.bias");
  o.st_w = at("head.state.weight"), o.st_b = at("head.state.bias");
  o.u_w = at("head.rel_u.weight"), o.u_b = at("head.rel_u.bias");
  o.v_w = at("head.rel_v.weight"), o.v_b = at("head.rel_v.bias");
  return o;
}

template <class S>
void wm_state_features(S* feats, const float* tokens, int64_t K) {
  for (int64_t k = 0; k < K; ++k) {
    const float* tok = tokens + k * kTokenDim;
    S* f = feats + k * kStateFeatures;
    for (int c = 0; c < kContinuous; ++c) {
      const S x = static_cast<S>(tok[kContinuousIndex[c]]);
      S* fc = f + c * (1 + 2 * kFourierK);
      fc[0] = x;
      for (int j = 0; j < kFourierK; ++j) {
        const S arg = static_cast<S>(1 << j) * static_cast<S>(std::numbers::pi) * x / S(2);
        fc[1 + 2 * j] = std::sin(arg);
        fc[2 + 2 * j] = std::cos(arg);
      }
    }
  }
}

template <class S>
void StateEncoderActs<S>::resize(int64_t K, int E) {
  feats.resize(K * kStateFeatures);
  h0.resize(K * E), h1.resize(K * E), out.resize(K * E);
  g.resize(K * 2 * E), v.resize(K * 2 * E), sg.resize(K * 2 * E), u.resize(K * 2 * E);
  mean.resize(K), rstd.resize(K);
}

template <class S>
void state_encoder_forward(StateEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                           nn::WeightsArg<S> W, const float* tokens, int64_t K, int threads) {
  const int E = c.embed, F = kStateFeatures;
  a.resize(K, E);
  wm_state_features(a.feats.data(), tokens, K);
  linear_forward(a.h0.data(), a.feats.data(), W, o.in_w, o.in_b, K, F, E, threads);
  linear_forward(a.g.data(), a.h0.data(), W, o.gate_w, o.gate_b, K, E, 2 * E, threads);
  linear_forward(a.v.data(), a.h0.data(), W, o.value_w, o.value_b, K, E, 2 * E, threads);
  silu_forward(a.sg.data(), a.g.data(), K * 2 * E);
  for (int64_t i = 0; i < K * 2 * E; ++i) a.u[i] = a.sg[i] * a.v[i];
  linear_forward(a.h1.data(), a.u.data(), W, o.out_w, o.out_b, K, 2 * E, E, threads);
  for (int64_t i = 0; i < K * E; ++i) a.h1[i] += a.h0[i];
  layernorm_forward(a.out.data(), a.mean.data(), a.rstd.data(), a.h1.data(), W.P + o.sln_w,
                    W.P + o.sln_b, K, E, static_cast<S>(kLayerNormEps), threads);
}

template <class S>
void state_encoder_backward(StateEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                            const S* P, S* G, const S* dout, int64_t K, int threads) {
  const int E = c.embed, F = kStateFeatures;
  std::vector<S>&dh1 = a.dh1, &dh0 = a.dh0, &du = a.du, &dg = a.dg, &dv = a.dv, &dsg = a.dsg;
  dh1.assign(K * E, S(0));
  du.assign(K * 2 * E, S(0));
  dg.assign(K * 2 * E, S(0));
  dv.resize(K * 2 * E);
  dsg.resize(K * 2 * E);
  layernorm_backward(dh1.data(), G + o.sln_w, G + o.sln_b, dout, a.h1.data(), a.mean.data(),
                     a.rstd.data(), P + o.sln_w, K, E, threads);
  dh0 = dh1;  // residual
  linear_backward(du.data(), G + o.out_w, G + o.out_b, dh1.data(), a.u.data(), P + o.out_w, K,
                  2 * E, E, threads);
  for (int64_t i = 0; i < K * 2 * E; ++i) {
    dsg[i] = du[i] * a.v[i];
    dv[i] = du[i] * a.sg[i];
  }
  silu_backward(dg.data(), dsg.data(), a.g.data(), K * 2 * E);
  linear_backward(dh0.data(), G + o.gate_w, G + o.gate_b, dg.data(), a.h0.data(), P + o.gate_w, K,
                  E, 2 * E, threads);
  linear_backward(dh0.data(), G + o.value_w, G + o.value_b, dv.data(), a.h0.data(), P + o.value_w,
                  K, E, 2 * E, threads);
  linear_backward(static_cast<S*>(nullptr), G + o.in_w, G + o.in_b, dh0.data(), a.feats.data(),
                  P + o.in_w, K, F, E, threads);
}

template <class S>
void ActionEncoderActs<S>::resize(int64_t K, int E) {
  cat.resize(K * 3 * (E / 4));
  pre.resize(K * E);
  out.resize(K * E);
}

template <class S>
void action_encoder_forward(ActionEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                            nn::WeightsArg<S> W, const uint8_t* actions, int64_t K, int threads) {
  const int E = c.embed, Ea = wm_action_embed(c);
  a.resize(K, E);
  const size_t tables[3] = {o.a_power, o.a_turn, o.a_shoot};
  for (int64_t k = 0; k < K; ++k)
    for (int h = 0; h < 3; ++h) {
      const S* e = W.P + tables[h] + static_cast<size_t>(actions[k * 3 + h]) * Ea;
      S* dst = a.cat.data() + k * 3 * Ea + h * Ea;
      for (int i = 0; i < Ea; ++i) dst[i] = e[i];
    }
  linear_forward(a.pre.data(), a.cat.data(), W, o.a_proj_w, o.a_proj_b, K, 3 * Ea, E, threads);
  silu_forward(a.out.data(), a.pre.data(), K * E);
}

template <class S>
void action_encoder_backward(ActionEncoderActs<S>& a, const WmConfig& c, const WmOffsets& o,
                             const S* P, S* G, const S* dout, const uint8_t* actions, int64_t K,
                             int threads) {
  const int E = c.embed, Ea = wm_action_embed(c);
  std::vector<S>&dpre = a.dpre, &dcat = a.dcat;
  dpre.assign(K * E, S(0));
  dcat.assign(K * 3 * Ea, S(0));
  silu_backward(dpre.data(), dout, a.pre.data(), K * E);
  linear_backward(dcat.data(), G + o.a_proj_w, G + o.a_proj_b, dpre.data(), a.cat.data(),
                  P + o.a_proj_w, K, 3 * Ea, E, threads);
  const size_t tables[3] = {o.a_power, o.a_turn, o.a_shoot};
  for (int64_t k = 0; k < K; ++k)
    for (int h = 0; h < 3; ++h) {
      S* ge = G + tables[h] + static_cast<size_t>(actions[k * 3 + h]) * Ea;
      const S* src = dcat.data() + k * 3 * Ea + h * Ea;
      for (int i = 0; i < Ea; ++i) ge[i] += src[i];
    }
}

namespace {
inline int bin(float v) {
  return v > 0.5f ? 1 : 0;
}

// Offsets (into the parameter or gradient buffer) of the embedding rows a token adds:
// slot, team id, type, then alive/team/fired for state tokens and the absolute position.
int token_embedding_rows(const WmOffsets& o, int E, int slot, int type, const float* tok,
                         int position, size_t* rows) {
  int n = 0;
  rows[n++] = o.slot + static_cast<size_t>(slot) * E;
  rows[n++] = o.teamid + static_cast<size_t>(slot / 4) * E;
  rows[n++] = o.type + static_cast<size_t>(type) * E;
  if (tok) {
    rows[n++] = o.emb_alive + static_cast<size_t>(bin(tok[0])) * E;
    rows[n++] = o.emb_team + static_cast<size_t>(bin(tok[1])) * E;
    rows[n++] = o.emb_fired + static_cast<size_t>(bin(tok[12])) * E;
  }
  if (o.pos != kNoTensor && position >= 0) rows[n++] = o.pos + static_cast<size_t>(position) * E;
  return n;
}
}  // namespace

template <class S>
void add_token_embeddings(S* x, const WmConfig& c, const WmOffsets& o, const S* P, int slot,
                          int type, const float* tok, int position) {
  const int E = c.embed;
  size_t rows[7];
  const int n = token_embedding_rows(o, E, slot, type, tok, position, rows);
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < E; ++i) x[i] += P[rows[r] + i];
}

template <class S>
void add_token_embeddings_backward(const S* dx, const WmConfig& c, const WmOffsets& o, S* G,
                                   int slot, int type, const float* tok, int position) {
  const int E = c.embed;
  size_t rows[7];
  const int n = token_embedding_rows(o, E, slot, type, tok, position, rows);
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < E; ++i) G[rows[r] + i] += dx[i];
}

std::vector<double> wm_rope_inv_freq(const WmConfig& c) {
  const int D = wm_head_dim(c);
  std::vector<double> inv(static_cast<size_t>(D / 2));
  for (int i = 0; i < D / 2; ++i) inv[static_cast<size_t>(i)] = std::pow(c.rope_base, -2.0 * i / D);
  return inv;
}

template <class S>
void wm_rope_tables(std::vector<S>& cs, std::vector<S>& sn, const WmConfig& c, int P) {
  const std::vector<double> inv = wm_rope_inv_freq(c);
  const int half = wm_head_dim(c) / 2;
  cs.resize(static_cast<size_t>(P) * half);
  sn.resize(static_cast<size_t>(P) * half);
  for (int p = 0; p < P; ++p)
    for (int i = 0; i < half; ++i) {
      const double ang = static_cast<double>(p) * inv[i];
      cs[static_cast<size_t>(p) * half + i] = static_cast<S>(std::cos(ang));
      sn[static_cast<size_t>(p) * half + i] = static_cast<S>(std::sin(ang));
    }
}

#define POSLAB_WM_LAYERS_INSTANTIATE(S)                                                            \
  template void wm_state_features<S>(S*, const float*, int64_t);                                   \
  template struct StateEncoderActs<S>;                                                             \
  template struct ActionEncoderActs<S>;                                                            \
  template void state_encoder_forward<S>(StateEncoderActs<S>&, const WmConfig&, const WmOffsets&,  \
                                         const nn::Weights<S>&, const float*, int64_t, int);       \
  template void state_encoder_backward<S>(StateEncoderActs<S>&, const WmConfig&, const WmOffsets&, \
                                          const S*, S*, const S*, int64_t, int);                   \
  template void action_encoder_forward<S>(ActionEncoderActs<S>&, const WmConfig&,                  \
                                          const WmOffsets&, const nn::Weights<S>&, const uint8_t*, \
                                          int64_t, int);                                           \
  template void action_encoder_backward<S>(ActionEncoderActs<S>&, const WmConfig&,                 \
                                           const WmOffsets&, const S*, S*, const S*,               \
                                           const uint8_t*, int64_t, int);                          \
  template void add_token_embeddings<S>(S*, const WmConfig&, const WmOffsets&, const S*, int, int, \
                                        const float*, int);                                        \
  template void add_token_embeddings_backward<S>(const S*, const WmConfig&, const WmOffsets&, S*,  \
                                                 int, int, const float*, int);                     \
  template void wm_rope_tables<S>(std::vector<S>&, std::vector<S>&, const WmConfig&, int);

POSLAB_WM_LAYERS_INSTANTIATE(float)
POSLAB_WM_LAYERS_INSTANTIATE(double)

}  // namespace poslab::wm
