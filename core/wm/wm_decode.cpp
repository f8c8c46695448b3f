// Incremental decoding for dreams (wm_decode.hpp): the same layers as the training forward
// (world_model.cpp), run on the 8 new tokens of one slot with the temporal blocks reading
// their keys and values from the cache.
#include "core/wm/wm_decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/random.hpp"
#include "core/nn/layers.hpp"
#include "core/nn/param_table.hpp"
#include "core/wm/wm_layers.hpp"

namespace poslab::wm {

using namespace poslab::nn;

namespace {
constexpr int kN = kShips;

// a . b over n floats with 8 running partial sums: a fixed summation order that the
// compiler can keep in one vector register (a plain float sum may not be reordered, so it
// stays one scalar chain). The partials are added pairwise at the end.
inline float decode_dot(const float* a, const float* b, int n) {
  float p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) p[l] += a[i + l] * b[i + l];
  float s = ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7]));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

const char* wm_overflow_name(WmOverflow o) {
  switch (o) {
    case WmOverflow::slide:
      return "slide";
    case WmOverflow::recompute:
      return "recompute";
    case WmOverflow::patch:
      return "patch";
  }
  return "slide";
}
WmOverflow wm_overflow_from_name(std::string_view s) {
  if (s == "approximate" || s == "naive" || s == "reset") return WmOverflow::slide;  // old names
  static const std::vector<std::string> names{"slide", "recompute", "patch"};        // enum order
  return enum_from_name<WmOverflow>("window", s, names);
}

// Buffers for one step's tokens (8 S rows, then 8 A rows), allocated once.
struct WmDreamer::Scratch {
  WmOffsets off;
  std::vector<float> panels;     // params_panels: the Linear weights as read by decoding
  std::vector<double> inv_freq;  // (D/2) RoPE frequencies
  StateEncoderActs<float> senc;
  ActionEncoderActs<float> aenc;
  std::vector<float> x, ln, qkv, att, tmp;  // (2N, E), (2N, 3E): the S rows, then the A rows
  std::vector<float> mean, rstd;            // (2N)
  nn::MlpActs<float> mlp;                   // the MLP half's (2N, E), (2N, 4E)
  std::vector<float> rel;                   // (N, N, 12)
  std::vector<float> rb_pre, rb_act;        // (N*N, 64)
  std::vector<float> rb;                    // (Ls, N*N, H), kept from S to A
  std::vector<float> probs;                 // (H, N, N)
  std::vector<float> scores;                // (2C)
  std::vector<float> cs, sn;                // (2, D/2) for the positions of S and A
  std::vector<float> U, V;                  // (N, 12R)
  uint8_t alive[kN];
};

WmDreamer::WmDreamer(const WorldModel& model, WmOverflow overflow)
    : config_(model.config()),
      overflow_(overflow),
      params_(model.params),
      scratch_(std::make_shared<Scratch>()) {
  const int E = config_.embed, C = config_.context, H = config_.heads, D = wm_head_dim(config_);
  Scratch& s = *scratch_;
  s.off = wm_offsets(config_, model.layout());
  s.panels = params_panels(model.layout(), params_.data());
  s.inv_freq = wm_rope_inv_freq(config_);
  cache_.resize(config_.layers);
  for (int l = 0; l < config_.layers; ++l)
    if (wm_is_temporal(l)) {  // K and V: (N, 4C, E) each
      cache_[l].k.assign(wm_dream_cache_block_floats(config_), 0.0f);
      cache_[l].v.assign(wm_dream_cache_block_floats(config_), 0.0f);
    }
  hist_states_.assign(static_cast<size_t>(C) * kN * kTokenDim, 0.0f);
  hist_actions_.assign(static_cast<size_t>(C) * kN * 3, 0);
  indices_.reserve(2 * C);
  s.senc.resize(kN, E);
  s.aenc.resize(kN, E);
  for (auto* v : {&s.x, &s.ln, &s.att, &s.tmp}) v->assign(2 * kN * E, 0.0f);
  s.qkv.assign(2 * kN * 3 * E, 0.0f);
  s.mlp.ln.assign(2 * kN * E, 0.0f), s.mlp.mean.assign(2 * kN, 0.0f);
  s.mlp.rstd.assign(2 * kN, 0.0f);
  s.mlp.fc.assign(2 * kN * 4 * E, 0.0f), s.mlp.act.assign(2 * kN * 4 * E, 0.0f);
  s.mean.assign(2 * kN, 0.0f);
  s.rstd.assign(2 * kN, 0.0f);
  s.rel.assign(kN * kN * kRelDim, 0.0f);
  s.rb_pre.assign(kN * kN * kRelBiasHidden, 0.0f);
  s.rb_act.assign(kN * kN * kRelBiasHidden, 0.0f);
  s.rb.assign(static_cast<size_t>(config_.layers) * kN * kN * H, 0.0f);  // per spatial block
  s.probs.assign(H * kN * kN, 0.0f);
  s.scores.assign(2 * C, 0.0f);
  s.cs.assign(D, 0.0f);
  s.sn.assign(D, 0.0f);
  s.U.assign(kN * kRelDim * kRelRank, 0.0f);
  s.V.assign(kN * kRelDim * kRelRank, 0.0f);
}

void WmDreamer::reset() {
  indices_.clear();
  first_ = 0;
  next_step_ = 0;
}
int WmDreamer::steps_cached() const {
  return static_cast<int>(indices_.size()) / 2;
}
int WmDreamer::next_step() const {
  return next_step_;
}

std::vector<WmCachedIndex> WmDreamer::cache_indices() const {
  std::vector<WmCachedIndex> out = indices_;
  for (size_t k = 0; k < out.size(); ++k)
    out[k].used_pos =
        config_.position == WmPosition::rope ? out[k].stored_pos : static_cast<int>(k);
  return out;
}

size_t WmDreamer::cache_rows() const {
  return static_cast<size_t>(kCacheRows) * config_.context;
}
size_t WmDreamer::key_column(int ship, int k) const {
  return static_cast<size_t>(ship) * config_.embed * cache_rows() + static_cast<size_t>(first_ + k);
}
size_t WmDreamer::cache_row(int ship, int k) const {
  return (static_cast<size_t>(ship) * cache_rows() + static_cast<size_t>(first_ + k)) *
         static_cast<size_t>(config_.embed);
}

// The oldest step leaves by moving the window's start; only when the next step would not
// fit are the cached rows moved back to the front (once every C steps, not every step).
void WmDreamer::drop_oldest_step() {
  indices_.erase(indices_.begin(), indices_.begin() + 2);
  first_ += 2;
  const int steps = steps_cached();
  std::memmove(hist_states_.data(), hist_states_.data() + kN * kTokenDim,
               static_cast<size_t>(steps) * kN * kTokenDim * sizeof(float));
  std::memmove(hist_actions_.data(), hist_actions_.data() + kN * 3,
               static_cast<size_t>(steps) * kN * 3);
  if (static_cast<size_t>(first_) + indices_.size() + 2 <= cache_rows()) return;
  const size_t live = indices_.size(), E = static_cast<size_t>(config_.embed), R = cache_rows();
  for (auto& lc : cache_) {
    if (lc.k.empty()) continue;
    for (int n = 0; n < kN; ++n) {
      const size_t from = cache_row(n, 0), to = cache_row(n, -first_);
      std::memmove(lc.v.data() + to, lc.v.data() + from, live * E * sizeof(float));
      for (size_t d = 0; d < E; ++d) {
        float* row = lc.k.data() + key_column(n, -first_) + d * R;
        std::memmove(row, row + first_, live * sizeof(float));
      }
    }
  }
  first_ = 0;
}

void WmDreamer::recompute_window() {
  const int steps = steps_cached();
  std::vector<WmCachedIndex> old = indices_;
  indices_.clear();
  first_ = 0;
  for (int i = 0; i < steps; ++i) {
    const float* st = &hist_states_[static_cast<size_t>(i) * kN * kTokenDim];
    const uint8_t* ac = &hist_actions_[static_cast<size_t>(i) * kN * 3];
    run_tokens(0, 2, st, ac, 2 * i, nullptr);
    indices_.push_back({old[2 * i].step, 0, 2 * i, 2 * i});
    indices_.push_back({old[2 * i].step, 1, 2 * i + 1, 2 * i + 1});
  }
}

// UniZero's correction after drop_oldest_step (learned absolute positions): every cached
// token k is now used at index k but was stored with position row stored_pos, so each
// temporal block's cached key and value get that block's projection of the row difference,
//   K[n, k] += W_k · (P[k] - P[stored_pos])      W_k: rows E .. 2E-1 of qkv_w (3E, E)
//   V[n, k] += W_v · (P[k] - P[stored_pos])      W_v: rows 2E .. 3E-1
// (the biases cancel in the difference), the same for every ship n. Afterwards each token
// counts as stored at its used index.
void WmDreamer::patch_window() {
  const WmConfig& c = config_;
  const int E = c.embed;
  const WmOffsets& o = scratch_->off;
  if (c.position != WmPosition::absolute || o.pos == kNoTensor) return;  // RoPE: nothing to patch
  const float* P = params_.data();
  std::vector<float> delta(static_cast<size_t>(E)), dk(static_cast<size_t>(E)),
      dv(static_cast<size_t>(E));
  for (size_t k = 0; k < indices_.size(); ++k) {
    const int from = indices_[k].stored_pos, to = static_cast<int>(k);
    if (from == to) continue;
    const float* p_to = P + o.pos + static_cast<size_t>(to) * E;
    const float* p_from = P + o.pos + static_cast<size_t>(from) * E;
    for (int i = 0; i < E; ++i) delta[i] = p_to[i] - p_from[i];
    for (int l = 0; l < c.layers; ++l) {
      if (!wm_is_temporal(l)) continue;
      const float* W = P + o.blocks[l].attn.qkv_w;  // (3E, E), row r = output r
      for (int r = 0; r < E; ++r) {
        dk[r] = decode_dot(W + static_cast<size_t>(E + r) * E, delta.data(), E);
        dv[r] = decode_dot(W + static_cast<size_t>(2 * E + r) * E, delta.data(), E);
      }
      LayerCache& lc = cache_[l];
      for (int n = 0; n < kN; ++n) {
        float* kc = lc.k.data() + key_column(n, static_cast<int>(k));
        float* vr = lc.v.data() + cache_row(n, static_cast<int>(k));
        for (int i = 0; i < E; ++i) {
          kc[static_cast<size_t>(i) * cache_rows()] += dk[i];
          vr[i] += dv[i];
        }
      }
    }
    indices_[k].stored_pos = to;
  }
}

std::vector<float> WmDreamer::cached_key(int layer, int ship, int k) const {
  if (layer < 0 || layer >= config_.layers || !wm_is_temporal(layer) || ship < 0 || ship >= kN ||
      k < 0 || k >= static_cast<int>(indices_.size()))
    throw InputError("cached_key: no cached token " + std::to_string(k) + " of ship " +
                     std::to_string(ship) + " in block " + std::to_string(layer));
  std::vector<float> key(static_cast<size_t>(config_.embed));
  const float* col = cache_[layer].k.data() + key_column(ship, k);
  for (size_t d = 0; d < key.size(); ++d) key[d] = col[d * cache_rows()];
  return key;
}
std::vector<float> WmDreamer::cached_value(int layer, int ship, int k) const {
  (void)cached_key(layer, ship, k);  // the same checks
  const float* row = cache_[layer].v.data() + cache_row(ship, k);
  return {row, row + config_.embed};
}

// Runs the tokens of `slots` slots from `first` (0 = S_t, 1 = A_t; both when the actions
// are known before the step) through every block: 8 rows per slot, S rows first, so every
// weight is read once for both. The new tokens are appended to the temporal caches from
// index K = indices_.size() (the caller pushes their WmCachedIndex afterwards), slot k's at
// K + k, and attend to cached indices 0..K + k: the causal mask is offset by the cached
// length. Each row's numbers are the same whether its slot runs alone or with the other.
// Fills the head outputs (and what the lab draws) when out is set; out->cached_tokens is
// the row length of its temporal weights.
void WmDreamer::run_tokens(int first, int slots, const float* state, const uint8_t* actions,
                           int position, WmStepResult* out) {
  const WmConfig& c = config_;
  Scratch& s = *scratch_;
  const WmOffsets& o = s.off;
  const float* P = params_.data();
  const Weights<float> W(P, s.panels.data());  // Linear layers: no packing per call
  const int E = c.embed, H = c.heads, D = wm_head_dim(c), half = D / 2;
  const int M = slots * kN;                         // rows
  const int K = static_cast<int>(indices_.size());  // cached tokens before these
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));

  // inputs: encoders, embeddings, alive mask, relational features of this step's states
  for (int n = 0; n < kN; ++n) s.alive[n] = state[n * kTokenDim] > 0.5f;
  for (int k = 0; k < slots; ++k) {
    const int slot = first + k;
    float* x = s.x.data() + static_cast<size_t>(k) * kN * E;
    if (slot == 0) {
      state_encoder_forward(s.senc, c, o, W, state, kN, 1);
      std::copy(s.senc.out.begin(), s.senc.out.end(), x);
    } else {
      action_encoder_forward(s.aenc, c, o, W, actions, kN, 1);
      std::copy(s.aenc.out.begin(), s.aenc.out.end(), x);
    }
    const int abs_pos = c.position == WmPosition::absolute ? position + k : -1;
    for (int n = 0; n < kN; ++n)
      add_token_embeddings(x + n * E, c, o, P, n, slot, slot == 0 ? state + n * kTokenDim : nullptr,
                           abs_pos);
    if (c.position == WmPosition::rope)
      for (int i = 0; i < half; ++i) {
        const double ang = static_cast<double>(position + k) * s.inv_freq[i];
        s.cs[k * half + i] = static_cast<float>(std::cos(ang));
        s.sn[k * half + i] = static_cast<float>(std::sin(ang));
      }
  }
  if (first == 0) {  // the A tokens of the step reuse the features (and biases) of its S
    double tmp[kN * kN * kRelDim];
    bnb::relational_from_tokens(state, tmp);
    for (int i = 0; i < kN * kN * kRelDim; ++i) s.rel[i] = static_cast<float>(tmp[i]);
  }
  int table_row[2 * kN];  // row m of the RoPE tables: its slot's position
  for (int m = 0; m < M; ++m) table_row[m] = m / kN;
  // the row of slot k's temporal weights (ship n, head h) in out, for block tl
  auto temporal_row = [&](int tl, int k, int n) {
    return &out->temporal_probs[(((static_cast<size_t>(tl) * 2 + first + k) * kN + n) * H) *
                                out->cached_tokens];
  };

  int tl = 0, sl = 0;  // temporal / spatial block counters (for the drawing outputs)
  for (int l = 0; l < c.layers; ++l) {
    const auto& ob = o.blocks[l];
    layernorm_forward(s.ln.data(), s.mean.data(), s.rstd.data(), s.x.data(), P + ob.attn.ln_w,
                      P + ob.attn.ln_b, M, E, kLayerNormEps);
    linear_forward(s.qkv.data(), s.ln.data(), W, ob.attn.qkv_w, ob.attn.qkv_b, M, E, 3 * E);
    if (wm_is_temporal(l)) {
      if (c.position == WmPosition::rope) {  // the tables hold these tokens' positions
        rope_forward(s.qkv.data(), M, 3 * E, 0, H, D, s.cs.data(), s.sn.data(), table_row);
        rope_forward(s.qkv.data(), M, 3 * E, E, H, D, s.cs.data(), s.sn.data(), table_row);
      }
      LayerCache& lc = cache_[l];
      for (int n = 0; n < kN; ++n) {  // append the keys and values, then attend 0..K + k
        float* kc = lc.k.data() + key_column(n, 0);  // (E, 4C): key j is column j
        float* vc = lc.v.data() + cache_row(n, 0);   // (4C, E): value j is row j
        for (int k = 0; k < slots; ++k) {
          const float* row = &s.qkv[static_cast<size_t>(k * kN + n) * 3 * E];
          for (int d = 0; d < E; ++d)
            kc[static_cast<size_t>(d) * cache_rows() + K + k] = row[E + d];
          std::copy_n(row + 2 * E, E, vc + static_cast<size_t>(K + k) * E);
        }
        const auto ldk = static_cast<int64_t>(cache_rows());
        for (int h = 0; h < H; ++h)  // the S and A queries of a head read its cache in turn
          for (int k = 0; k < slots; ++k)
            attention_decode(&s.att[static_cast<size_t>(k * kN + n) * E + h * D],
                             out ? temporal_row(tl, k, n) + h * out->cached_tokens : nullptr,
                             &s.qkv[static_cast<size_t>(k * kN + n) * 3 * E + h * D],
                             kc + h * D * ldk, ldk, vc + h * D, E, K + k + 1, D, scale,
                             s.scores.data());
      }
      ++tl;
    } else {
      float* rb = s.rb.data() + static_cast<size_t>(sl) * kN * kN * H;  // this block's bias
      if (first == 0) {
        linear_forward(s.rb_pre.data(), s.rel.data(), W, ob.rb1_w, ob.rb1_b, kN * kN, kRelDim,
                       kRelBiasHidden);
        silu_forward(s.rb_act.data(), s.rb_pre.data(), kN * kN * kRelBiasHidden);
        linear_forward(rb, s.rb_act.data(), W, ob.rb2_w, ob.rb2_b, kN * kN, kRelBiasHidden, H);
        if (out)
          std::copy_n(rb, kN * kN * H,
                      out->spatial_bias.begin() + static_cast<size_t>(sl) * kN * kN * H);
      }
      for (int k = 0; k < slots; ++k) {
        attention_forward(s.att.data(), s.probs.data(), s.qkv.data(), E, H,
                          AttnGroup{k * kN, 1, kN}, false, s.alive, rb);
        if (out)
          std::copy(
              s.probs.begin(), s.probs.end(),
              out->spatial_probs.begin() + (static_cast<size_t>(sl) * 2 + first + k) * H * kN * kN);
      }
      ++sl;
    }
    linear_forward(s.tmp.data(), s.att.data(), W, ob.attn.proj_w, ob.attn.proj_b, M, E, E);
    for (int i = 0; i < M * E; ++i) s.x[i] += s.tmp[i];
    mlp_forward(s.tmp.data(), s.mlp, s.x.data(), W, ob.mlp, M, E, 4 * E, kLayerNormEps, 1);
    std::copy_n(s.tmp.begin(), M * E, s.x.begin());  // tmp = x + MLP(x)
  }
  if (!out) return;

  // heads: the S rows give the action logits, the A rows the next state and relations
  layernorm_forward(s.ln.data(), s.mean.data(), s.rstd.data(), s.x.data(), P + o.lnf_w, P + o.lnf_b,
                    M, E, kLayerNormEps);
  if (first == 0) {
    out->action_logits.resize(kN * kActionLogits);
    linear_forward(out->action_logits.data(), s.ln.data(), W, o.act_w, o.act_b, kN, E,
                   kActionLogits);
  }
  if (first + slots < 2) return;
  const float* ln = s.ln.data() + static_cast<size_t>(slots - 1) * kN * E;  // the A rows
  out->state_pred.resize(kN * kTokenDim);
  linear_forward(out->state_pred.data(), ln, W, o.st_w, o.st_b, kN, E, kTokenDim);
  {  // ŝ = base(S_t) + state_scale ⊙ head (docs section 5)
    float base[kN * kTokenDim];
    wm_state_base(config_.state_base, state, base);
    const std::vector<float>& sc = config_.state_scale;
    for (int i = 0; i < kN * kTokenDim; ++i)
      out->state_pred[i] = base[i] + (sc.empty() ? 1.0f : sc[i % kTokenDim]) * out->state_pred[i];
  }
  const int R = kRelRank;
  linear_forward(s.U.data(), ln, W, o.u_w, o.u_b, kN, E, kRelDim * R);
  linear_forward(s.V.data(), ln, W, o.v_w, o.v_b, kN, E, kRelDim * R);
  out->rel_pred.resize(kN * kN * kRelDim);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      for (int f = 0; f < kRelDim; ++f) {
        float acc = 0;
        for (int r = 0; r < R; ++r)
          acc += s.U[(i * kRelDim + f) * R + r] * s.V[(j * kRelDim + f) * R + r];
        const int k = (i * kN + j) * kRelDim + f;
        out->rel_pred[k] = s.rel[k] + acc;
      }
}

int wm_pick_action(const float* lg, int size, bool sample, double temperature, uint64_t seed, int t,
                   int n, int h) {
  int best = 0;
  for (int i = 1; i < size; ++i)
    if (lg[i] > lg[best]) best = i;
  if (!sample) return best;
  require_in_range("temperature", temperature, ParamRange{1e-6, 100});
  if (size > kActionLogits) throw InputError("wm_pick_action: a head has at most 12 logits");
  double p[kActionLogits], sum = 0;
  for (int i = 0; i < size; ++i) sum += (p[i] = std::exp((lg[i] - lg[best]) / temperature));
  SeededStream rng(
      seed, "wm/dream",
      (static_cast<uint64_t>(t) * kN + static_cast<uint64_t>(n)) * 3 + static_cast<uint64_t>(h));
  double u = rng.uniform() * sum;
  best = size - 1;
  for (int i = 0; i < size; ++i) {
    if (u < p[i]) return i;
    u -= p[i];
  }
  return best;
}

WmStepResult WmDreamer::step(const float* state, const WmActionChoice& choice) {
  const WmConfig& c = config_;
  const int H = c.heads, C = c.context;
  if (steps_cached() == C) {
    drop_oldest_step();
    if (overflow_ == WmOverflow::recompute) recompute_window();
    if (overflow_ == WmOverflow::patch) patch_window();
  }
  const int t = next_step_;
  const int w = steps_cached();  // window index of this step
  const int ps = (c.position == WmPosition::rope && overflow_ != WmOverflow::recompute) ? t : w;
  std::copy_n(state, kN * kTokenDim, &hist_states_[static_cast<size_t>(w) * kN * kTokenDim]);

  int lt = 0, ls = 0;
  for (int l = 0; l < c.layers; ++l) (wm_is_temporal(l) ? lt : ls)++;
  WmStepResult r;
  r.step = t;
  const int K1 = static_cast<int>(indices_.size()) + 1;  // keys seen by the S token
  r.cached_tokens = K1 + 1;
  r.temporal_probs.assign(static_cast<size_t>(lt) * 2 * kN * H * r.cached_tokens, 0.0f);
  r.spatial_probs.assign(static_cast<size_t>(ls) * 2 * H * kN * kN, 0.0f);
  r.spatial_bias.assign(static_cast<size_t>(ls) * kN * kN * H, 0.0f);

  // Every action given (teacher forcing): S_t and A_t in one pass. Otherwise S_t first,
  // then the actions from its policy head, then A_t.
  r.actions.assign(kN * 3, 0);
  bool all_given = true;
  for (int n = 0; n < kN; ++n) {
    if (!choice.override_action[n]) {
      all_given = false;
      continue;
    }
    for (int h = 0; h < 3; ++h) {
      const uint8_t a = (*choice.override_action[n])[h];
      if (a >= bnb::kActionSizes[h])
        throw InputError("dream action " + std::to_string(a) + " of head " + std::to_string(h) +
                         " for ship " + std::to_string(n) + " is out of range");
      r.actions[n * 3 + h] = a;
    }
  }
  if (all_given) {
    run_tokens(0, 2, state, r.actions.data(), 2 * ps, &r);
    indices_.push_back({t, 0, 2 * ps, 2 * ps});
  } else {
    run_tokens(0, 1, state, nullptr, 2 * ps, &r);
    indices_.push_back({t, 0, 2 * ps, 2 * ps});
    for (int n = 0; n < kN; ++n)  // the policy head (argmax or seeded sampling)
      if (!choice.override_action[n])
        for (int h = 0; h < 3; ++h)
          r.actions[n * 3 + h] = static_cast<uint8_t>(wm_pick_action(
              &r.action_logits[n * kActionLogits + kActionHeadStart[h]], kActionHeadSize[h],
              choice.sample, choice.temperature, choice.seed, t, n, h));
    run_tokens(1, 1, state, r.actions.data(), 2 * ps + 1, &r);
  }
  indices_.push_back({t, 1, 2 * ps + 1, 2 * ps + 1});
  std::copy_n(r.actions.data(), kN * 3, &hist_actions_[static_cast<size_t>(w) * kN * 3]);

  // S_{t+1} to feed back: binaries snapped, absent ships stay absent
  r.next_state = r.state_pred;
  for (int n = 0; n < kN; ++n) {
    float* s = &r.next_state[n * kTokenDim];
    const float* in = state + n * kTokenDim;
    if (in[4] * in[4] + in[5] * in[5] <= 0.5f) {
      std::fill(s, s + kTokenDim, 0.0f);
      continue;
    }
    for (int b : {0, 1, 12}) s[b] = s[b] > 0.5f ? 1.0f : 0.0f;
  }
  ++next_step_;
  return r;
}

WmStepResult WmDreamer::step_with_actions(const float* state, const uint8_t* actions) {
  WmActionChoice choice;
  for (int n = 0; n < kN; ++n)
    choice.override_action[n] =
        std::array<uint8_t, 3>{actions[n * 3], actions[n * 3 + 1], actions[n * 3 + 2]};
  return step(state, choice);
}

std::vector<double> wm_dream_difference(WmDreamer& a, WmDreamer& b, const float* states,
                                        const uint8_t* actions, int steps) {
  a.reset();
  b.reset();
  std::vector<double> diff(static_cast<size_t>(steps), 0.0);
  for (int t = 0; t < steps; ++t) {
    const float* st = states + static_cast<size_t>(t) * kN * kTokenDim;
    const uint8_t* ac = actions + static_cast<size_t>(t) * kN * 3;
    const WmStepResult ra = a.step_with_actions(st, ac), rb = b.step_with_actions(st, ac);
    for (size_t i = 0; i < ra.state_pred.size(); ++i)
      diff[t] = std::max(diff[t], double(std::abs(ra.state_pred[i] - rb.state_pred[i])));
  }
  return diff;
}

}  // namespace poslab::wm
