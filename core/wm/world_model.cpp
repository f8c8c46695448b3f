// The world model's training forward and backward (docs/world-model.md), top to bottom:
// masks and relational features, encoders, embeddings, alternating temporal/spatial
// blocks, final LayerNorm, heads, masked loss; then the same in reverse.
// Sections: Configuration (validation, names) | Parameter layout | Model (init and
// accessors, forward); the activations are world_model_impl.hpp's, the backward pass is
// world_model_backward.cpp.
#include "core/wm/world_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/random.hpp"
#include "core/nn/attention.hpp"
#include "core/nn/blocks.hpp"
#include "core/nn/layers.hpp"
#include "core/nn/parallel.hpp"
#include "core/wm/baselines.hpp"
#include "core/wm/wm_layers.hpp"
#include "core/wm/world_model_impl.hpp"

namespace poslab::wm {

using namespace poslab::nn;

// ---- Configuration ----------------------------------------------------------------------

WmConfig wm_preset(std::string_view name, WmPosition position) {
  WmConfig c;
  if (name == "tiny") {
    c.embed = 64, c.heads = 4, c.layers = 4, c.context = 32;
  } else if (name == "paper") {
    c.embed = 128, c.heads = 4, c.layers = 6, c.context = 96;
  } else {
    throw InputError("world-model preset '" + std::string(name) + "': use tiny or paper");
  }
  c.position = position;
  return c;
}

namespace {
ParamLayout param_layout_of(const WmConfig& c);
}  // namespace

void wm_validate(const WmConfig& c) {
  require_in_range("embed", c.embed, WmConfig::embed_range);
  require_in_range("heads", c.heads, WmConfig::heads_range);
  require_in_range("layers", c.layers, WmConfig::layers_range);
  require_in_range("context", c.context, WmConfig::context_range);
  require_in_range("rope_base", c.rope_base, WmConfig::rope_base_range);
  if (c.embed % 4 != 0 || c.embed % c.heads != 0 || (c.embed / c.heads) % 2 != 0) {
    std::ostringstream s;
    s << "embed = " << c.embed << ", heads = " << c.heads
      << ": embed must be a multiple of 4 and of heads, with an even head dim";
    throw InputError(s.str());
  }
  if (!c.state_scale.empty()) {
    if (c.state_scale.size() != kTokenDim)
      throw InputError("state_scale has " + std::to_string(c.state_scale.size()) +
                       " values; it must be empty or hold " + std::to_string(kTokenDim));
    for (int i = 0; i < kTokenDim; ++i)
      if (!(c.state_scale[i] >= 1e-6f && c.state_scale[i] <= 1e3f)) {
        std::ostringstream s;
        s << "state_scale[" << i << "] = " << c.state_scale[i] << " is outside [1e-6, 1e3]";
        throw InputError(s.str());
      }
  }
  // The budgets last: the fields are in range, so the sizes cannot overflow.
  const size_t P = param_layout_of(c).total;
  if (P > WmConfig::max_params || wm_dream_cache_floats(c) > WmConfig::max_cache_floats) {
    std::ostringstream s;
    s << "embed " << c.embed << ", heads " << c.heads << ", layers " << c.layers << ", context "
      << c.context << ": " << P << " parameters and a dream cache of " << wm_dream_cache_floats(c)
      << " floats, beyond this build's budget of " << WmConfig::max_params << " and "
      << WmConfig::max_cache_floats << " (the paper model needs "
      << param_layout_of(wm_preset("paper")).total << ")";
    throw InputError(s.str());
  }
}

const char* wm_state_base_name(WmStateBase b) {
  return b == WmStateBase::last ? "last" : "cv";
}

WmStateBase wm_state_base_from_name(std::string_view s) {
  static const std::vector<std::string> names{"last", "cv"};  // enum order
  return enum_from_name<WmStateBase>("state base", s, names);
}

const char* wm_state_loss_name(WmStateLoss l) {
  return l == WmStateLoss::raw ? "raw" : "sigma";
}

WmStateLoss wm_state_loss_from_name(std::string_view s) {
  static const std::vector<std::string> names{"raw", "sigma"};  // enum order
  return enum_from_name<WmStateLoss>("state loss", s, names);
}

void wm_state_base(WmStateBase b, const float* state, float* out) {
  if (b == WmStateBase::cv)
    baseline_constant_velocity(state, 1, out);
  else
    std::copy_n(state, kShips * kTokenDim, out);
}

const char* wm_position_name(WmPosition p) {
  return p == WmPosition::rope ? "rope" : "absolute";
}

WmPosition wm_position_from_name(std::string_view s) {
  static const std::vector<std::string> names{"rope", "absolute"};  // enum order
  return enum_from_name<WmPosition>("position", s, names);
}

// ---- Parameter layout --------------------------------------------------------------------

namespace {

// The tensor table: one row per tensor (name, shape, init role); the order is the
// allocation's (docs/world-model.md section 7) and the checkpoint's.
ParamLayout param_layout_of(const WmConfig& c) {
  const int E = c.embed, H = c.heads, Ea = wm_action_embed(c), R = kRelRank;
  constexpr Init out = Init::residual_out;
  ParamLayout L;
  L.model = "world model";
  L.linear("state_enc.in", E, kStateFeatures);
  L.linear("state_enc.gate", 2 * E, E);
  L.linear("state_enc.value", 2 * E, E);
  L.linear("state_enc.out", E, 2 * E, out);
  L.layernorm("state_enc.ln.weight", "state_enc.ln.bias", E);
  L.add("emb.alive", {2, E});
  L.add("emb.team", {2, E});
  L.add("emb.fired", {2, E});
  L.add("action_enc.power", {3, Ea});
  L.add("action_enc.turn", {7, Ea});
  L.add("action_enc.shoot", {2, Ea});
  L.linear("action_enc.proj", E, 3 * Ea);
  L.add("emb.slot", {kShips, E});
  L.add("emb.teamid", {2, E});
  L.add("emb.type", {2, E});
  if (c.position == WmPosition::absolute) L.add("emb.pos", {2 * c.context, E});
  for (int l = 0; l < c.layers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    L.layernorm(b + "ln1.weight", b + "ln1.bias", E);
    L.linear(b + "attn.qkv", 3 * E, E);
    L.linear(b + "attn.proj", E, E, out);
    if (!wm_is_temporal(l)) {
      L.linear(b + "relbias.fc1", kRelBiasHidden, kRelDim);
      L.linear(b + "relbias.fc2", H, kRelBiasHidden);
    }
    L.layernorm(b + "ln2.weight", b + "ln2.bias", E);
    L.linear(b + "mlp.fc1", 4 * E, E);
    L.linear(b + "mlp.fc2", E, 4 * E, out);
  }
  L.layernorm("ln_f.weight", "ln_f.bias", E);
  L.linear("head.action", kActionLogits, E);
  L.linear("head.state", kTokenDim, E);
  L.linear("head.rel_u", kRelDim * R, E);
  L.linear("head.rel_v", kRelDim * R, E);
  return L;
}

}  // namespace

ParamLayout wm_param_layout(const WmConfig& c) {
  wm_validate(c);
  return param_layout_of(c);
}

size_t wm_dream_cache_floats(const WmConfig& c) {
  const size_t temporal = static_cast<size_t>(c.layers + 1) / 2;  // blocks 0, 2, 4, ...
  return temporal * 2 * wm_dream_cache_block_floats(c);
}

size_t wm_dream_cache_block_floats(const WmConfig& c) {
  return static_cast<size_t>(kShips) * kDreamCacheRows * static_cast<size_t>(c.context) *
         static_cast<size_t>(c.embed);
}

size_t wm_param_count(const WmConfig& c) {
  return wm_param_layout(c).total;
}

// ---- Model ----------------------------------------------------------------------------

template <class S>
WorldModelT<S>::WorldModelT(const WmConfig& c)
    : nn::ParamStore<S>(wm_param_layout(c)), config_(c), impl_(std::make_unique<Impl>()) {
  impl_->off = wm_offsets(c, this->layout());
  impl_->scale.assign(kTokenDim, S(1));
  if (!c.state_scale.empty())
    for (int f = 0; f < kTokenDim; ++f) impl_->scale[f] = static_cast<S>(c.state_scale[f]);
  for (int f = 0; f < kTokenDim; ++f) {
    const double sigma = c.state_scale.empty() ? 1.0 : double(c.state_scale[f]);
    impl_->loss_w[f] = c.state_loss == WmStateLoss::sigma ? 1.0 / (sigma * sigma) : 1.0;
  }
}
template <class S>
WorldModelT<S>::~WorldModelT() = default;
template <class S>
WorldModelT<S>::WorldModelT(WorldModelT&&) noexcept = default;
template <class S>
WorldModelT<S>& WorldModelT<S>::operator=(WorldModelT&&) noexcept = default;

template <class S>
void WorldModelT<S>::init(uint64_t seed) {
  this->init_params(seed, "", config_.layers);
}

template <class S>
void WorldModelT<S>::set_threads(int n) {
  impl_->threads = n;
}
template <class S>
int WorldModelT<S>::threads() const {
  return resolve_threads(impl_->threads);
}
template <class S>
const S* WorldModelT<S>::action_logits() const {
  return impl_->logits.data();
}
template <class S>
const S* WorldModelT<S>::state_pred() const {
  return impl_->spred.data();
}
template <class S>
const S* WorldModelT<S>::rel_pred() const {
  return impl_->rpred.data();
}
template <class S>
const WmLoss& WorldModelT<S>::loss() const {
  return impl_->loss;
}

template <class S>
WmLoss WorldModelT<S>::forward(const WmBatch& batch) {
  forward_begin(batch);
  while (forward_step()) {
  }
  return impl_->loss;
}

template <class S>
void WorldModelT<S>::forward_begin(const WmBatch& batch) {
  wm_check_batch(config_, batch);
  Impl& I = *impl_;
  I.B = batch.batch, I.T = batch.steps;
  I.M = int64_t{I.B} * I.T * 2 * kShips;
  I.Ms = int64_t{I.B} * I.T * kShips;
  I.Mp = I.Ms * kShips;
  I.tokens = batch.tokens, I.actions = batch.actions, I.valid = batch.valid;
  I.have_forward = false;
  I.fstage = 0;
  I.bstage = -1;
}

// Stage 0: sections 1 and 2; stage 1 + 2l: block l's attention half, 2 + 2l its MLP half;
// the last (2L + 1): sections 4 and 5.
template <class S>
bool WorldModelT<S>::forward_step() {
  Impl& I = *impl_;
  if (I.fstage < 0) throw InputError("world model: forward_step() needs forward_begin() first");
  const int stage = I.fstage++;
  const WmOffsets& o = I.off;
  const WmConfig& c = config_;
  const int E = c.embed, H = c.heads, Ltot = c.layers, R = kRelRank;
  const int B = I.B, T = I.T;
  const int nt = resolve_threads(I.threads);
  const S* P = this->params.data();
  const int64_t M = I.M, Ms = I.Ms, Mp = I.Mp;

  if (stage == 0) {
    // 1. masks, relational features of every step, temporal positions
    I.alive.resize(Ms), I.present.resize(Ms);
    for (int64_t k = 0; k < Ms; ++k) {
      const float* tok = &I.tokens[k * kTokenDim];
      I.alive[k] = tok[0] > 0.5f;
      I.present[k] = tok[4] * tok[4] + tok[5] * tok[5] > 0.5f;
    }
    I.rel.resize(Mp * kRelDim);
    parallel_for(nt, int64_t{B} * T, [&](int64_t s0, int64_t s1) {
      double tmp[kShips * kShips * kRelDim];
      for (int64_t st = s0; st < s1; ++st) {
        bnb::relational_from_tokens(&I.tokens[st * kShips * kTokenDim], tmp);
        for (int i = 0; i < kShips * kShips * kRelDim; ++i)
          I.rel[st * kShips * kShips * kRelDim + i] = static_cast<S>(tmp[i]);
      }
    });
    I.pos.resize(M);
    for (int64_t r = 0; r < M; ++r) I.pos[r] = static_cast<int>((r / kShips) % (2 * T));
    if (c.position == WmPosition::rope && I.rope_len < 2 * T) {
      wm_rope_tables(I.rope_cs, I.rope_sn, c, 2 * T);
      I.rope_len = 2 * T;
    }

    // 2. encoders and embeddings: x0 (M, E)
    state_encoder_forward(I.senc, c, o, P, I.tokens.data(), Ms, nt);
    action_encoder_forward(I.aenc, c, o, P, I.actions.data(), Ms, nt);
    I.xs.resize(Ltot + 1);
    for (auto& x : I.xs) x.resize(M * E);
    {
      S* x0 = I.xs[0].data();
      for (int64_t k = 0; k < Ms; ++k) {
        const int n = static_cast<int>(k % kShips);
        const int t = static_cast<int>((k / kShips) % T);
        const bool absolute = c.position == WmPosition::absolute;
        S* xs = x0 + I.row_s(k) * E;
        S* xa = x0 + I.row_a(k) * E;
        std::copy_n(&I.senc.out[k * E], E, xs);
        std::copy_n(&I.aenc.out[k * E], E, xa);
        add_token_embeddings(xs, c, o, P, n, 0, &I.tokens[k * kTokenDim], absolute ? 2 * t : -1);
        add_token_embeddings(xa, c, o, P, n, 1, static_cast<const float*>(nullptr),
                             absolute ? 2 * t + 1 : -1);
      }
    }

    I.layers.resize(Ltot);
    return true;
  }

  // 3. blocks, one half per stage
  if (stage <= 2 * Ltot) {
    const int l = (stage - 1) / 2;
    auto& Y = I.layers[l];
    const auto& ob = o.blocks[l];
    const S* x = I.xs[l].data();
    if (stage % 2 == 0) {  // MLP half
      mlp_forward(I.xs[l + 1].data(), Y.mlp, Y.xmid.data(), P, ob.mlp, M, E, 4 * E,
                  static_cast<S>(kLayerNormEps), nt);
      return true;
    }
    Y.xmid.resize(M * E);
    if (wm_is_temporal(l)) {
      const int Lq = 2 * T;
      const AttnRope<S> rope = c.position == WmPosition::rope
                                   ? AttnRope<S>{I.rope_cs.data(), I.rope_sn.data(), I.pos.data()}
                                   : AttnRope<S>{};
      attn_forward(
          Y.xmid.data(), Y.attn, x, P, ob.attn, M, E, H, static_cast<S>(kLayerNormEps), rope,
          [&](AttnActs<S>& a) {
            a.probs.resize(int64_t{B} * kShips * H * Lq * Lq);
            parallel_for(nt, int64_t{B} * kShips, [&](int64_t g0, int64_t g1) {
              for (int64_t g = g0; g < g1; ++g) {
                const int64_t b = g / kShips, n = g % kShips;
                const AttnGroup grp{b * T * 2 * kShips + n, kShips, Lq};
                attention_forward(a.att.data(), a.probs.data() + g * H * Lq * Lq, a.qkv.data(), E,
                                  H, grp, true, static_cast<const uint8_t*>(nullptr),
                                  static_cast<const S*>(nullptr));
              }
            });
          },
          nt);
    } else {
      attn_forward(
          Y.xmid.data(), Y.attn, x, P, ob.attn, M, E, H, static_cast<S>(kLayerNormEps),
          AttnRope<S>{},
          [&](AttnActs<S>& a) {
            // relational bias (Mp, H) from the features of each step
            Y.rb_pre.resize(Mp * kRelBiasHidden), Y.rb_act.resize(Mp * kRelBiasHidden);
            Y.rb.resize(Mp * H);
            linear_forward(Y.rb_pre.data(), I.rel.data(), P + ob.rb1_w, P + ob.rb1_b, Mp, kRelDim,
                           kRelBiasHidden, nt);
            silu_forward(Y.rb_act.data(), Y.rb_pre.data(), Mp * kRelBiasHidden);
            linear_forward(Y.rb.data(), Y.rb_act.data(), P + ob.rb2_w, P + ob.rb2_b, Mp,
                           kRelBiasHidden, H, nt);
            a.probs.resize(int64_t{B} * T * 2 * H * kShips * kShips);
            parallel_for(nt, int64_t{B} * T * 2, [&](int64_t g0, int64_t g1) {
              for (int64_t g = g0; g < g1; ++g) {
                const int64_t st = g / 2;  // (b, t)
                const AttnGroup grp{g * kShips, 1, kShips};
                attention_forward(a.att.data(), a.probs.data() + g * H * kShips * kShips,
                                  a.qkv.data(), E, H, grp, false, &I.alive[st * kShips],
                                  Y.rb.data() + st * kShips * kShips * H);
              }
            });
          },
          nt);
    }
    return true;
  }

  // 4. final LayerNorm, heads
  I.lnf.resize(M * E), I.mf.resize(M), I.rf.resize(M);
  layernorm_forward(I.lnf.data(), I.mf.data(), I.rf.data(), I.xs[Ltot].data(), P + o.lnf_w,
                    P + o.lnf_b, M, E, static_cast<S>(kLayerNormEps), nt);
  I.zs.resize(Ms * E), I.za.resize(Ms * E);
  for (int64_t k = 0; k < Ms; ++k) {
    std::copy_n(&I.lnf[I.row_s(k) * E], E, &I.zs[k * E]);
    std::copy_n(&I.lnf[I.row_a(k) * E], E, &I.za[k * E]);
  }
  I.logits.resize(Ms * kActionLogits), I.head_s.resize(Ms * kTokenDim),
      I.spred.resize(Ms * kTokenDim);
  I.U.resize(Ms * kRelDim * R), I.V.resize(Ms * kRelDim * R), I.rpred.resize(Mp * kRelDim);
  linear_forward(I.logits.data(), I.zs.data(), P + o.act_w, P + o.act_b, Ms, E, kActionLogits, nt);
  linear_forward(I.head_s.data(), I.za.data(), P + o.st_w, P + o.st_b, Ms, E, kTokenDim, nt);
  I.base.resize(Ms * kTokenDim);
  for (int64_t st = 0; st < int64_t{B} * T; ++st)
    wm_state_base(c.state_base, &I.tokens[st * kShips * kTokenDim],
                  &I.base[st * kShips * kTokenDim]);
  for (int64_t i = 0; i < Ms * kTokenDim; ++i)
    I.spred[i] = static_cast<S>(I.base[i]) + I.scale[i % kTokenDim] * I.head_s[i];
  linear_forward(I.U.data(), I.za.data(), P + o.u_w, P + o.u_b, Ms, E, kRelDim * R, nt);
  linear_forward(I.V.data(), I.za.data(), P + o.v_w, P + o.v_b, Ms, E, kRelDim * R, nt);
  for (int64_t k = 0; k < Ms; ++k) {  // k = (b, t, i)
    const int64_t st = k / kShips;
    for (int j = 0; j < kShips; ++j) {
      const S* u = &I.U[k * kRelDim * R];
      const S* v = &I.V[(st * kShips + j) * kRelDim * R];
      const int64_t pr = (k * kShips + j) * kRelDim;
      for (int f = 0; f < kRelDim; ++f) {
        S acc = 0;
        for (int r = 0; r < R; ++r) acc += u[f * R + r] * v[f * R + r];
        I.rpred[pr + f] = I.rel[pr + f] + acc;
      }
    }
  }

  // 5. masked loss and its gradient with respect to the head outputs
  WmLoss L;
  I.dlogits.assign(Ms * kActionLogits, S(0));
  I.dspred.assign(Ms * kTokenDim, S(0));
  I.drel.assign(Mp * kRelDim, S(0));
  auto step_valid = [&](int64_t st) { return I.valid[st] != 0; };  // st = b*T + t
  for (int64_t k = 0; k < Ms; ++k) {
    const int64_t st = k / kShips;
    const int t = static_cast<int>(st % T);
    if (step_valid(st) && I.alive[k]) ++L.action_count;
    if (t + 1 < T && step_valid(st + 1) && I.present[k]) ++L.state_count;
    if (t + 1 < T && step_valid(st + 1) && I.present[k])
      for (int j = 0; j < kShips; ++j)
        if (j != k % kShips && I.present[st * kShips + j]) ++L.rel_count;
  }
  double ce[3] = {0, 0, 0}, mse_s = 0, mse_r = 0;
  for (int64_t k = 0; k < Ms; ++k) {
    const int64_t st = k / kShips;
    const int t = static_cast<int>(st % T);
    if (step_valid(st) && I.alive[k]) {
      const S* lg = &I.logits[k * kActionLogits];
      S* dl = &I.dlogits[k * kActionLogits];
      for (int h = 0; h < 3; ++h) {
        const int a = I.actions[k * 3 + h];
        double mx = -1e300;
        for (int i = 0; i < kActionHeadSize[h]; ++i)
          mx = std::max(mx, double(lg[kActionHeadStart[h] + i]));
        double sum = 0;
        for (int i = 0; i < kActionHeadSize[h]; ++i)
          sum += std::exp(double(lg[kActionHeadStart[h] + i]) - mx);
        const double lse = mx + std::log(sum);
        ce[h] += lse - double(lg[kActionHeadStart[h] + a]);
        const double scale = kActionWeight / static_cast<double>(L.action_count);
        for (int i = 0; i < kActionHeadSize[h]; ++i) {
          const double p = std::exp(double(lg[kActionHeadStart[h] + i]) - lse);
          dl[kActionHeadStart[h] + i] = static_cast<S>(scale * (p - (i == a ? 1.0 : 0.0)));
        }
      }
    }
    if (t + 1 < T && step_valid(st + 1) && I.present[k]) {
      const double scale = 2.0 / (kTokenDim * static_cast<double>(L.state_count));
      for (int f = 0; f < kTokenDim; ++f) {
        const double e =
            double(I.spred[k * kTokenDim + f]) - double(I.tokens[(k + kShips) * kTokenDim + f]);
        mse_s += I.loss_w[f] * e * e;
        I.dspred[k * kTokenDim + f] = static_cast<S>(scale * I.loss_w[f] * e);
      }
      const double rscale = kRelWeight * 2.0 / (kRelDim * static_cast<double>(L.rel_count));
      for (int j = 0; j < kShips; ++j) {
        if (j == k % kShips || !I.present[st * kShips + j]) continue;
        const int64_t pr = (k * kShips + j) * kRelDim;
        const int64_t next = pr + int64_t{kShips} * kShips * kRelDim;  // same pair at t + 1
        for (int f = 0; f < kRelDim; ++f) {
          const double e = double(I.rpred[pr + f]) - double(I.rel[next + f]);
          mse_r += e * e;
          I.drel[pr + f] = static_cast<S>(rscale * e);
        }
      }
    }
  }
  if (L.action_count > 0) {
    L.power = ce[0] / L.action_count;
    L.turn = ce[1] / L.action_count;
    L.shoot = ce[2] / L.action_count;
  }
  if (L.state_count > 0) L.state = mse_s / (kTokenDim * static_cast<double>(L.state_count));
  if (L.rel_count > 0) L.rel = mse_r / (kRelDim * static_cast<double>(L.rel_count));
  L.total = L.state + kActionWeight * (L.power + L.turn + L.shoot) + kRelWeight * L.rel;
  I.loss = L;
  I.have_forward = true;
  I.fstage = -1;
  return false;
}

template class WorldModelT<float>;
template class WorldModelT<double>;

}  // namespace poslab::wm
