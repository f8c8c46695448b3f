// The byte-level language model of core/lm/lm.hpp: layout, init, forward and backward over
// core/nn's layers. Passes are numbered as in core/wm/world_model.cpp; every buffer's shape
// is in the legend of lm.hpp (M = B*T rows).
#include "core/lm/lm.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/random.hpp"
#include "core/nn/attention.hpp"
#include "core/nn/blocks.hpp"
#include "core/nn/layers.hpp"
#include "core/nn/parallel.hpp"
#include "core/position/encodings.hpp"

namespace poslab::lm {

using nn::AttnGroup;
using nn::parallel_for;
using nn::resolve_threads;

const std::vector<std::string>& lm_position_names() {
  static const std::vector<std::string> names{"none",  "sinusoidal", "learned",          "rope",
                                              "alibi", "t5",         "sinusoidal_scaled"};
  return names;
}

const char* lm_position_name(LmPosition p) {
  return lm_position_names()[static_cast<size_t>(p)].c_str();
}

LmPosition lm_position_from_name(std::string_view s) {
  return enum_from_name<LmPosition>("position", s, lm_position_names());
}

namespace {

// The tensor table: one row per tensor (name, shape, init role), in allocation and
// checkpoint order; tools/torch/lm.py's module names are the same.
ParamLayout lm_layout_of(const LmConfig& c) {
  const int E = c.embed, F = lm_mlp_dim(c);
  constexpr nn::Init out = nn::Init::residual_out;
  ParamLayout L;
  L.model = "language model";
  L.add("tok_emb.weight", {kVocab, E});
  if (c.position == LmPosition::learned)
    L.add("pos_emb.weight", {c.context, E}, nn::Init::normal, 0.01);
  if (c.position == LmPosition::t5)
    L.add("t5_bias.weight", {c.t5_buckets, c.heads}, nn::Init::zeros);
  for (int i = 0; i < c.layers; ++i) {
    const std::string b = "blocks." + std::to_string(i) + ".";
    L.layernorm(b + "ln1.weight", b + "ln1.bias", E);
    L.linear(b + "attn.qkv", 3 * E, E);
    L.linear(b + "attn.proj", E, E, out);
    L.layernorm(b + "ln2.weight", b + "ln2.bias", E);
    L.linear(b + "mlp.fc", F, E);
    L.linear(b + "mlp.proj", E, F, out);
  }
  L.layernorm("ln_f.weight", "ln_f.bias", E);
  return L;
}

// The factor on tok_emb at the input: sqrt(E) for sinusoidal_scaled, else 1.
template <class S>
S lm_embed_scale(const LmConfig& c) {
  return c.position == LmPosition::sinusoidal_scaled ? static_cast<S>(std::sqrt(double(c.embed)))
                                                     : S(1);
}

}  // namespace

void lm_validate(const LmConfig& c) {
  require_in_range("embed", c.embed, LmConfig::embed_range);
  require_in_range("heads", c.heads, LmConfig::heads_range);
  require_in_range("layers", c.layers, LmConfig::layers_range);
  require_in_range("context", c.context, LmConfig::context_range);
  // The floor is exclusive (base 1 makes every angle 0): the generic "[1, 1e+09]" would print
  // the floor 1.000001 as 1, a range that does not say what is refused.
  if (!LmConfig::rope_base_range.contains(c.rope_base)) {
    std::ostringstream v;
    v << c.rope_base;
    throw InputError("rope_base = " + v.str() + ": must be greater than 1 and at most 1e9");
  }
  if (c.embed % c.heads != 0 || (c.embed / c.heads) % 2 != 0)
    throw InputError("embed = " + std::to_string(c.embed) + ", heads = " + std::to_string(c.heads) +
                     ": embed must be a multiple of heads with an even head dim (embed/heads)");
  if (c.position == LmPosition::t5) {
    require_in_range("t5_buckets", c.t5_buckets, LmConfig::t5_buckets_range);
    require_in_range("t5_max_distance", c.t5_max_distance, LmConfig::t5_max_distance_range);
    t5_validate(false, c.t5_buckets, c.t5_max_distance);
  }
  const size_t p = lm_layout_of(c).total;
  if (p > LmConfig::max_params)
    throw InputError("model of " + std::to_string(p) + " parameters: more than the " +
                     std::to_string(LmConfig::max_params) +
                     " allowed; use a smaller embed or layers");
}

ParamLayout lm_param_layout(const LmConfig& c) {
  lm_validate(c);
  return lm_layout_of(c);
}

size_t lm_param_count(const LmConfig& c) {
  return lm_param_layout(c).total;
}

std::vector<uint8_t> lm_decay_mask(const LmConfig& c) {
  return nn::param_mask(lm_param_layout(c), [](const TensorInfo& t) {
    return t.name == "tok_emb.weight" || (t.shape.size() == 2 && t.name.rfind("blocks.", 0) == 0);
  });
}

RopeParams lm_rope_params(const LmConfig& c, const LmScaling& s, int window) {
  RopeParams p;
  p.head_dim = lm_head_dim(c);
  p.base = c.rope_base;
  p.layout = RopeLayout::half_split;
  p.scaling = s.scaling;
  p.factor = s.factor;
  p.original_context = c.context;
  p.current_length = std::max(1, window);
  rope_validate(p);
  return p;
}

std::string lm_scaling_label(const LmScaling& s) {
  if (s.scaling == RopeScaling::none) return "none";
  std::string f = std::to_string(s.factor);
  while (!f.empty() && f.back() == '0') f.pop_back();
  if (!f.empty() && f.back() == '.') f.pop_back();
  return rope_scaling_names()[static_cast<size_t>(s.scaling)] + " x" + f;
}

// ---- Activations ---------------------------------------------------------------------

// Offsets of a block's tensors in the allocation. Outside an anonymous namespace: Impl holds
// them, and a unity build would warn (-Wsubobject-linkage) of a member whose type has none.
struct LmBlockOffsets {
  nn::AttnOffsets attn;  // ln1, attn.qkv, attn.proj
  nn::MlpOffsets mlp;    // ln2, mlp.fc, mlp.proj
};
struct LmOffsets {
  size_t tok = 0, pos = 0, t5 = 0, lnf_w = 0, lnf_b = 0;
  std::vector<LmBlockOffsets> blocks;
};

static LmOffsets lm_offsets(const LmConfig& c, const ParamLayout& L) {
  LmOffsets o;
  auto at = [&](const std::string& n) { return L.find(n).offset; };
  o.tok = at("tok_emb.weight");
  if (c.position == LmPosition::learned) o.pos = at("pos_emb.weight");
  if (c.position == LmPosition::t5) o.t5 = at("t5_bias.weight");
  for (int i = 0; i < c.layers; ++i) {
    const std::string b = "blocks." + std::to_string(i) + ".";
    o.blocks.push_back(
        {{at(b + "ln1.weight"), at(b + "ln1.bias"), at(b + "attn.qkv.weight"),
          at(b + "attn.qkv.bias"), at(b + "attn.proj.weight"), at(b + "attn.proj.bias")},
         {at(b + "ln2.weight"), at(b + "ln2.bias"), at(b + "mlp.fc.weight"), at(b + "mlp.fc.bias"),
          at(b + "mlp.proj.weight"), at(b + "mlp.proj.bias")}});
  }
  o.lnf_w = at("ln_f.weight");
  o.lnf_b = at("ln_f.bias");
  return o;
}

template <class S>
struct LmModelT<S>::Impl {
  LmOffsets off;
  int threads = 0;
  LmScaling scaling;
  int B = 0, T = 0;
  int64_t M = 0;  // B*T rows
  bool have_forward = false;
  std::vector<uint8_t> x, y;  // (M) input bytes and targets
  std::vector<int> pos;       // (M) position t of every row
  // RoPE tables for positions 0..T-1 of the current (T, scaling)
  std::vector<S> rope_cs, rope_sn;  // (T, D/2), times rope_attention_scale
  int rope_T = -1;
  LmScaling rope_scaling;
  std::vector<S> sinus;  // (T, E) sinusoidal rows (sinusoidal only)
  int sinus_T = -1;
  std::vector<int> bucket;         // (T, T) T5 bucket of (query t, key s) (t5 only)
  std::vector<S> bias;             // (T, T, H) additive attention bias (alibi, t5)
  std::vector<std::vector<S>> xs;  // N+1 of (M, E): input of each block, then the output
  struct Layer {
    nn::AttnActs<S> attn;  // ln1, qkv (q and k rotated: rope), probs (B, H, T, T) of the half
    std::vector<S> xmid;   // (M, E) after the attention residual
    nn::MlpActs<S> mlp;    // ln2, fc and GELU of the MLP half
  };
  std::vector<Layer> layers;
  std::vector<S> lnf, mf, rf;  // (M, E), (M), (M)
  std::vector<S> logits;       // (M, V)
  std::vector<S> losses;       // (M) nats
  std::vector<S> dlogits;      // (M, V) gradient of the mean loss
  // backward scratch
  std::vector<S> dz, dx, dbias;
  nn::AttnScratch<S> attn;
  nn::MlpScratch<S> mlp;

  // The RoPE rows of q and k (rope only; no rotation otherwise).
  nn::AttnRope<S> rope_rows(const LmConfig& c) const {
    if (c.position != LmPosition::rope) return {};
    return {rope_cs.data(), rope_sn.data(), pos.data()};
  }
};

// ---- Model ----------------------------------------------------------------------------

template <class S>
LmModelT<S>::LmModelT(const LmConfig& c)
    : nn::ParamStore<S>(lm_param_layout(c)), config_(c), impl_(std::make_unique<Impl>()) {
  impl_->off = lm_offsets(c, this->layout());
}
template <class S>
LmModelT<S>::~LmModelT() = default;
template <class S>
LmModelT<S>::LmModelT(LmModelT&&) noexcept = default;
template <class S>
LmModelT<S>& LmModelT<S>::operator=(LmModelT&&) noexcept = default;

template <class S>
void LmModelT<S>::init(uint64_t seed) {
  this->init_params(seed, "lm:", config_.layers);
}

template <class S>
void LmModelT<S>::set_threads(int n) {
  impl_->threads = n;
}
template <class S>
int LmModelT<S>::threads() const {
  return resolve_threads(impl_->threads);
}
template <class S>
void LmModelT<S>::set_scaling(const LmScaling& s) {
  lm_rope_params(config_, s, 1);  // validates the factor
  impl_->scaling = s;
}
template <class S>
const LmScaling& LmModelT<S>::scaling() const {
  return impl_->scaling;
}
template <class S>
int LmModelT<S>::batch() const {
  return impl_->B;
}
template <class S>
int LmModelT<S>::steps() const {
  return impl_->T;
}
template <class S>
const S* LmModelT<S>::logits() const {
  return impl_->logits.data();
}
template <class S>
const S* LmModelT<S>::losses() const {
  return impl_->losses.data();
}
template <class S>
const S* LmModelT<S>::probs(int layer) const {
  if (layer < 0 || layer >= static_cast<int>(impl_->layers.size()))
    throw InputError("layer = " + std::to_string(layer) + ": must be in [0, " +
                     std::to_string(config_.layers - 1) + "]");
  return impl_->layers[static_cast<size_t>(layer)].attn.probs.data();
}

template <class S>
double LmModelT<S>::forward(const uint8_t* bytes, int B, int T) {
  if (B < 1 || T < 1)
    throw InputError("language model batch of " + std::to_string(B) + " windows of " +
                     std::to_string(T) + " positions: both must be >= 1");
  Impl& I = *impl_;
  const LmOffsets& o = I.off;
  const LmConfig& c = config_;
  const int E = c.embed, H = c.heads, D = lm_head_dim(c), F = lm_mlp_dim(c), N = c.layers;
  const int nt = resolve_threads(I.threads);
  const S* P = this->params.data();
  I.B = B, I.T = T;
  const int64_t M = int64_t{B} * T;
  I.M = M;

  // 1. inputs, targets, positions; position tables of this window length
  I.x.resize(M), I.y.resize(M), I.pos.resize(M);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const int64_t r = int64_t{b} * T + t;
      I.x[r] = bytes[int64_t{b} * (T + 1) + t];
      I.y[r] = bytes[int64_t{b} * (T + 1) + t + 1];
      I.pos[r] = t;
    }
  if (c.position == LmPosition::rope && (I.rope_T != T || !(I.rope_scaling == I.scaling))) {
    // Dynamic NTK: row t with the base of its own prefix of t + 1 bytes (a KV-cached
    // decoder's keys keep the rotation they were appended with), so rows t < L are unscaled.
    const bool per_prefix = I.scaling.scaling == RopeScaling::dynamic_ntk;
    RopeParams rp = lm_rope_params(c, I.scaling, T);
    Eigen::VectorXd inv = rope_inv_freq(rp);
    double ms = rope_attention_scale(rp);
    const int half = D / 2;
    I.rope_cs.resize(static_cast<size_t>(T) * half), I.rope_sn.resize(I.rope_cs.size());
    for (int t = 0; t < T; ++t) {
      if (per_prefix) {
        rp = lm_rope_params(c, I.scaling, t + 1);
        inv = rope_inv_freq(rp);
        ms = rope_attention_scale(rp);
      }
      lm_rope_row(inv, ms, t, I.rope_cs.data() + static_cast<size_t>(t) * half,
                  I.rope_sn.data() + static_cast<size_t>(t) * half);
    }
    I.rope_T = T, I.rope_scaling = I.scaling;
  }
  const bool add_sinus =
      c.position == LmPosition::sinusoidal || c.position == LmPosition::sinusoidal_scaled;
  if (add_sinus && I.sinus_T != T) {
    std::vector<double> ps(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) ps[static_cast<size_t>(t)] = t;
    const RowMatrix pe = sinusoidal_encoding(ps, E, 10000.0, SinusoidLayout::interleaved);
    I.sinus.resize(static_cast<size_t>(T) * E);
    for (int t = 0; t < T; ++t)
      for (int e = 0; e < E; ++e)
        I.sinus[static_cast<size_t>(t) * E + e] = static_cast<S>(pe(t, e));
    I.sinus_T = T;
  }
  const bool has_bias = c.position == LmPosition::alibi || c.position == LmPosition::t5;
  if (has_bias) {
    I.bias.assign(static_cast<size_t>(T) * T * H, S(0));
    if (c.position == LmPosition::alibi) {
      const std::vector<double> m = alibi_slopes(H);
      for (int t = 0; t < T; ++t)
        for (int s = 0; s <= t; ++s)
          for (int h = 0; h < H; ++h)
            I.bias[(static_cast<size_t>(t) * T + s) * H + h] = static_cast<S>(-m[h] * (t - s));
    } else {
      I.bucket.assign(static_cast<size_t>(T) * T, 0);
      const S* tb = P + o.t5;                                // (K, H)
      std::vector<int> by_distance(static_cast<size_t>(T));  // the bucket depends on t - s only
      for (int d = 0; d < T; ++d)
        by_distance[d] = t5_bucket(-d, false, c.t5_buckets, c.t5_max_distance);
      for (int t = 0; t < T; ++t)
        for (int s = 0; s <= t; ++s) {
          const int k = by_distance[t - s];
          I.bucket[static_cast<size_t>(t) * T + s] = k;
          for (int h = 0; h < H; ++h)
            I.bias[(static_cast<size_t>(t) * T + s) * H + h] = tb[k * H + h];
        }
    }
  }

  // 2. embeddings: x0 (M, E) = tok_emb[x] * emb_scale + position rows
  I.xs.resize(N + 1);
  for (auto& v : I.xs) v.resize(M * E);
  {
    S* x0 = I.xs[0].data();
    const S scale = lm_embed_scale<S>(c);
    for (int64_t r = 0; r < M; ++r) {
      const S* te = P + o.tok + static_cast<size_t>(I.x[r]) * E;
      S* row = x0 + r * E;
      for (int e = 0; e < E; ++e) row[e] = te[e] * scale;
      if (c.position == LmPosition::learned) {
        const S* pe = P + o.pos + static_cast<size_t>(lm_learned_row(c, I.pos[r])) * E;
        for (int e = 0; e < E; ++e) row[e] += pe[e];
      } else if (add_sinus) {
        const S* pe = I.sinus.data() + static_cast<size_t>(I.pos[r]) * E;
        for (int e = 0; e < E; ++e) row[e] += pe[e];
      }
    }
  }

  // 3. blocks
  I.layers.resize(N);
  const S eps = static_cast<S>(kLayerNormEps);
  const nn::AttnRope<S> rope = I.rope_rows(c);
  for (int l = 0; l < N; ++l) {
    auto& Y = I.layers[l];
    const auto& ob = o.blocks[l];
    const S* x = I.xs[l].data();
    Y.xmid.resize(M * E);
    const S* bias = has_bias ? I.bias.data() : static_cast<const S*>(nullptr);
    nn::attn_forward(
        Y.xmid.data(), Y.attn, x, P, ob.attn, M, E, H, eps, rope,
        [&](nn::AttnActs<S>& a) {
          a.probs.resize(static_cast<size_t>(M) * H * T);
          parallel_for(nt, B, [&](int64_t b0, int64_t b1) {
            for (int64_t b = b0; b < b1; ++b)
              nn::causal_attention_forward(a.att.data() + b * T * E, a.probs.data() + b * H * T * T,
                                           a.qkv.data() + b * T * 3 * E, E, H, T, bias);
          });
        },
        nt);
    nn::mlp_forward(I.xs[l + 1].data(), Y.mlp, Y.xmid.data(), P, ob.mlp, M, E, F, eps, nt);
  }

  // 4. final LayerNorm, tied head: logits (M, V) = lnf · tok_embᵀ
  I.lnf.resize(M * E), I.mf.resize(M), I.rf.resize(M);
  nn::layernorm_forward(I.lnf.data(), I.mf.data(), I.rf.data(), I.xs[N].data(), P + o.lnf_w,
                        P + o.lnf_b, M, E, eps, nt);
  I.logits.resize(M * kVocab);
  nn::linear_forward(I.logits.data(), I.lnf.data(), P + o.tok, static_cast<const S*>(nullptr), M, E,
                     kVocab, nt);

  // 5. cross-entropy per row and the gradient of the mean
  I.losses.resize(M);
  I.dlogits.resize(M * kVocab);
  nn::cross_entropy_forward(I.losses.data(), I.dlogits.data(), I.logits.data(), I.y.data(), M,
                            kVocab, S(1) / static_cast<S>(M), nt);
  double total = 0;
  for (int64_t r = 0; r < M; ++r) total += static_cast<double>(I.losses[r]);
  I.have_forward = true;
  return total / static_cast<double>(M);
}

template <class S>
void LmModelT<S>::backward() {
  Impl& I = *impl_;
  if (!I.have_forward) throw InputError("language model: backward() without a forward()");
  const LmOffsets& o = I.off;
  const LmConfig& c = config_;
  const int E = c.embed, H = c.heads, F = lm_mlp_dim(c), N = c.layers;
  const int B = I.B, T = I.T;
  const int64_t M = I.M;
  const int nt = resolve_threads(I.threads);
  const S* P = this->params.data();
  S* G = this->grads.data();

  // 4'. tied head and final LayerNorm -> dx (M, E), the gradient of the residual stream
  std::vector<S>&dz = I.dz, &dx = I.dx;
  nn::zero_fill(dz, M * E, nt);
  nn::zero_fill(dx, M * E, nt);
  nn::linear_backward(dz.data(), G + o.tok, static_cast<S*>(nullptr), I.dlogits.data(),
                      I.lnf.data(), P + o.tok, M, E, kVocab, nt);
  nn::layernorm_backward(dx.data(), G + o.lnf_w, G + o.lnf_b, dz.data(), I.xs[N].data(),
                         I.mf.data(), I.rf.data(), P + o.lnf_w, M, E, nt);

  // 3'. blocks in reverse; dx is the gradient of the block's output, then of its input
  const bool t5 = c.position == LmPosition::t5;
  if (t5) I.dbias.resize(static_cast<size_t>(B) * T * T * H);
  const nn::AttnRope<S> rope = I.rope_rows(c);
  for (int l = N - 1; l >= 0; --l) {
    auto& Y = I.layers[l];
    const auto& ob = o.blocks[l];
    // MLP half: xo = xmid + fc2(gelu(fc(ln2(xmid))))
    nn::mlp_backward(dx.data(), G, I.mlp, Y.mlp, Y.xmid.data(), P, ob.mlp, M, E, F, nt);
    // attention half: xmid = x + proj(attn(qkv(ln1(x))))
    nn::attn_backward(
        dx.data(), G, I.attn, Y.attn, I.xs[l].data(), P, ob.attn, M, E, H, rope,
        [&](S* dqkv, const S* datt, const nn::AttnActs<S>& a) {
          if (t5) std::fill(I.dbias.begin(), I.dbias.end(), S(0));
          parallel_for(nt, B, [&](int64_t b0, int64_t b1) {
            for (int64_t b = b0; b < b1; ++b)
              nn::causal_attention_backward(
                  dqkv + b * T * 3 * E,
                  t5 ? I.dbias.data() + b * T * T * H : static_cast<S*>(nullptr), datt + b * T * E,
                  a.probs.data() + b * H * T * T, a.qkv.data() + b * T * 3 * E, E, H, T);
          });
          if (t5) {  // the shared table: sum over windows and over the pairs of each bucket
            S* gt = G + o.t5;
            for (int b = 0; b < B; ++b)
              for (int t = 0; t < T; ++t)
                for (int s = 0; s <= t; ++s) {
                  const int k = I.bucket[static_cast<size_t>(t) * T + s];
                  const S* db = I.dbias.data() + ((static_cast<size_t>(b) * T + t) * T + s) * H;
                  for (int h = 0; h < H; ++h) gt[k * H + h] += db[h];
                }
          }
        },
        nt);
  }

  // 2'. embeddings
  const S scale = lm_embed_scale<S>(c);
  for (int64_t r = 0; r < M; ++r) {
    const S* d = dx.data() + r * E;
    S* gt = G + o.tok + static_cast<size_t>(I.x[r]) * E;
    for (int e = 0; e < E; ++e) gt[e] += d[e] * scale;
    if (c.position == LmPosition::learned) {
      S* gp = G + o.pos + static_cast<size_t>(lm_learned_row(c, I.pos[r])) * E;
      for (int e = 0; e < E; ++e) gp[e] += d[e];
    }
  }
}

template class LmModelT<float>;
template class LmModelT<double>;

}  // namespace poslab::lm
