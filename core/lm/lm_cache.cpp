// The KV-cached forward of lm_cache.hpp: LmModelT::forward's passes (lm.cpp) for new bytes
// appended to a cache, with the attention written per query row over the cached slots.
#include "core/lm/lm_cache.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "core/common/errors.hpp"
#include "core/nn/blocks.hpp"
#include "core/nn/layers.hpp"
#include "core/position/encodings.hpp"

namespace poslab::lm {
namespace {

// RoPE table rows (D/2 cos and sin) of single positions, as lm.cpp builds its tables: times
// the scaling's attention scale when `scaled`, with the base of the prefix pos + 1 for
// dynamic NTK (whose frequencies depend on the position; the others' are computed once).
class LmCacheRope {
 public:
  LmCacheRope(const LmConfig& c, const LmScaling& s, bool scaled)
      : c_(c), s_(s), scaled_(scaled), half_(lm_head_dim(c) / 2), cs_(half_), sn_(half_) {
    if (s.scaling != RopeScaling::dynamic_ntk) set(c.context);
  }
  // Rotates the H heads of one row of 3E (starting at column col0) by +-angle(pos).
  void rotate(float* row, int col0, int64_t pos, bool inverse) {
    if (s_.scaling == RopeScaling::dynamic_ntk) set(static_cast<int>(pos + 1));
    lm_rope_row(inv_, ms_, pos, cs_.data(), sn_.data());
    const int zero = 0, D = lm_head_dim(c_);
    if (inverse)
      nn::rope_backward(row, 1, c_.embed * 3, col0, c_.heads, D, cs_.data(), sn_.data(), &zero);
    else
      nn::rope_forward(row, 1, c_.embed * 3, col0, c_.heads, D, cs_.data(), sn_.data(), &zero);
  }

 private:
  void set(int window) {
    const RopeParams rp = lm_rope_params(c_, s_, window);
    inv_ = rope_inv_freq(rp);
    ms_ = scaled_ ? rope_attention_scale(rp) : 1.0;
  }
  const LmConfig& c_;
  LmScaling s_;
  bool scaled_;
  int half_;
  Eigen::VectorXd inv_;
  double ms_ = 1.0;
  std::vector<float> cs_, sn_;
};

std::string blk(int l, const char* name) {
  return "blocks." + std::to_string(l) + "." + name;
}

}  // namespace

LmKvCache lm_cache_empty(const LmConfig& c) {
  LmKvCache k;
  k.embed = c.embed;
  k.k.resize(static_cast<size_t>(c.layers));
  k.v.resize(static_cast<size_t>(c.layers));
  k.h.resize(static_cast<size_t>(c.layers));
  return k;
}

void lm_cache_append(const LmModel& m, LmKvCache& cache, const uint8_t* x, const int64_t* pos,
                     int n, const uint8_t* targets, float* nats) {
  const LmConfig& c = m.config();
  const LmScaling& sc = m.scaling();
  const int E = c.embed, H = c.heads, D = lm_head_dim(c), F = lm_mlp_dim(c), N = c.layers;
  if (n < 1) throw InputError("cached forward of " + std::to_string(n) + " bytes: need >= 1");
  if (cache.embed != E || static_cast<int>(cache.k.size()) != N)
    throw InputError("cached forward: the cache was made for another model shape");
  for (int t = 0; t < n; ++t)
    if (pos[t] < 0) throw InputError("cached forward at a negative position");
  const float eps = kLayerNormEps;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int64_t n0 = cache.size();

  // 1. embeddings (n, E): tok_emb[x] * emb_scale + the position's row
  std::vector<float> h(static_cast<size_t>(n) * E);
  const float* tok = m.tensor("tok_emb.weight");
  const float emb_scale = c.position == LmPosition::sinusoidal_scaled
                              ? static_cast<float>(std::sqrt(static_cast<double>(E)))
                              : 1.0f;
  for (int t = 0; t < n; ++t) {
    float* row = h.data() + static_cast<size_t>(t) * E;
    const float* te = tok + static_cast<size_t>(x[t]) * E;
    for (int e = 0; e < E; ++e) row[e] = te[e] * emb_scale;
    if (c.position == LmPosition::learned) {
      const float* pe =
          m.tensor("pos_emb.weight") + static_cast<size_t>(lm_learned_row(c, pos[t])) * E;
      for (int e = 0; e < E; ++e) row[e] += pe[e];
    } else if (c.position == LmPosition::sinusoidal ||
               c.position == LmPosition::sinusoidal_scaled) {
      const RowMatrix pe = sinusoidal_encoding({static_cast<double>(pos[t])}, E, 10000.0,
                                               SinusoidLayout::interleaved);
      for (int e = 0; e < E; ++e) row[e] += static_cast<float>(pe(0, e));
    }
  }
  for (int t = 0; t < n; ++t) {
    cache.key_pos.push_back(pos[t]);
    cache.own_pos.push_back(pos[t]);
  }

  const std::vector<double> slopes =
      c.position == LmPosition::alibi ? alibi_slopes(H) : std::vector<double>{};
  const float* t5 = c.position == LmPosition::t5 ? m.tensor("t5_bias.weight") : nullptr;
  auto bias = [&](int64_t q_pos, int64_t k_pos, int hd) -> float {
    if (c.position == LmPosition::alibi)
      return static_cast<float>(-slopes[static_cast<size_t>(hd)] *
                                static_cast<double>(q_pos - k_pos));
    if (t5) {
      const int k =
          t5_bucket(static_cast<int>(k_pos - q_pos), false, c.t5_buckets, c.t5_max_distance);
      return t5[k * H + hd];
    }
    return 0.0f;
  };

  std::vector<float> ln(h.size()), mu(static_cast<size_t>(n)), rs(mu.size());
  std::vector<float> qkv(static_cast<size_t>(n) * 3 * E), att(h.size()), xmid(h.size());
  std::vector<float> p;
  nn::MlpActs<float> mlp;  // the MLP half: core/nn's, as LmModel::forward runs it
  const float* P = m.params.data();
  auto at = [&](int l, const char* name) {
    return static_cast<size_t>(m.tensor(blk(l, name)) - P);
  };
  std::optional<LmCacheRope> rope;
  if (c.position == LmPosition::rope) rope.emplace(c, sc, true);
  for (int l = 0; l < N; ++l) {
    // 2. LN1, qkv (n, 3E), RoPE on q and k at each byte's position
    nn::layernorm_forward(ln.data(), mu.data(), rs.data(), h.data(), m.tensor(blk(l, "ln1.weight")),
                          m.tensor(blk(l, "ln1.bias")), n, E, eps);
    nn::linear_forward(qkv.data(), ln.data(), m.tensor(blk(l, "attn.qkv.weight")),
                       m.tensor(blk(l, "attn.qkv.bias")), n, E, 3 * E);
    for (int t = 0; t < n; ++t) {
      float* row = qkv.data() + static_cast<size_t>(t) * 3 * E;
      if (rope) {
        rope->rotate(row, 0, pos[t], false);
        rope->rotate(row, E, pos[t], false);
      }
      cache.k[l].insert(cache.k[l].end(), row + E, row + 2 * E);
      cache.v[l].insert(cache.v[l].end(), row + 2 * E, row + 3 * E);
    }
    // 3. attention of byte t over slots 0..n0+t: q·k * scale + bias, softmax, Σ p v
    const float* K = cache.k[l].data();
    const float* V = cache.v[l].data();
    for (int t = 0; t < n; ++t) {
      const int64_t ns = n0 + t + 1;
      p.resize(static_cast<size_t>(ns));
      const float* q = qkv.data() + static_cast<size_t>(t) * 3 * E;
      float* out = att.data() + static_cast<size_t>(t) * E;
      for (int hd = 0; hd < H; ++hd) {
        const int o = hd * D;
        float mx = -INFINITY;
        for (int64_t j = 0; j < ns; ++j) {
          const float* kj = K + j * E + o;
          float d = 0;
          for (int i = 0; i < D; ++i) d += q[o + i] * kj[i];
          p[j] = d * scale + bias(pos[t], cache.key_pos[j], hd);
          mx = std::max(mx, p[j]);
        }
        float sum = 0;
        for (int64_t j = 0; j < ns; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (int i = 0; i < D; ++i) out[o + i] = 0;
        for (int64_t j = 0; j < ns; ++j) {
          const float w = p[j] / sum;
          const float* vj = V + j * E + o;
          for (int i = 0; i < D; ++i) out[o + i] += w * vj[i];
        }
      }
    }
    // 4. projection and residual; LN2, MLP and residual
    nn::linear_forward(xmid.data(), att.data(), m.tensor(blk(l, "attn.proj.weight")),
                       m.tensor(blk(l, "attn.proj.bias")), n, E, E);
    for (size_t i = 0; i < h.size(); ++i) xmid[i] += h[i];
    const nn::MlpOffsets mo{at(l, "ln2.weight"),  at(l, "ln2.bias"),        at(l, "mlp.fc.weight"),
                            at(l, "mlp.fc.bias"), at(l, "mlp.proj.weight"), at(l, "mlp.proj.bias")};
    nn::mlp_forward(h.data(), mlp, xmid.data(), P, mo, n, E, F, eps, 1);
    cache.h[l].insert(cache.h[l].end(), h.begin(), h.end());
  }
  if (!targets) return;

  // 5. final LayerNorm, tied head, the loss of each target
  nn::layernorm_forward(ln.data(), mu.data(), rs.data(), h.data(), m.tensor("ln_f.weight"),
                        m.tensor("ln_f.bias"), n, E, eps);
  std::vector<float> z(static_cast<size_t>(n) * kVocab);
  nn::linear_forward(z.data(), ln.data(), tok, static_cast<const float*>(nullptr), n, E, kVocab);
  for (int t = 0; t < n; ++t) {
    const float* zt = z.data() + static_cast<size_t>(t) * kVocab;
    const float mx = *std::max_element(zt, zt + kVocab);
    float sum = 0;
    for (int v = 0; v < kVocab; ++v) sum += std::exp(zt[v] - mx);
    nats[t] = mx + std::log(sum) - zt[targets[t]];
  }
}

LmKvCache lm_cache_concat(const LmKvCache& a, const LmKvCache& b) {
  if (a.embed != b.embed || a.k.size() != b.k.size())
    throw InputError("concatenating caches of two model shapes");
  LmKvCache r = a;
  for (size_t l = 0; l < r.k.size(); ++l) {
    r.k[l].insert(r.k[l].end(), b.k[l].begin(), b.k[l].end());
    r.v[l].insert(r.v[l].end(), b.v[l].begin(), b.v[l].end());
    r.h[l].insert(r.h[l].end(), b.h[l].begin(), b.h[l].end());
  }
  r.key_pos.insert(r.key_pos.end(), b.key_pos.begin(), b.key_pos.end());
  r.own_pos.insert(r.own_pos.end(), b.own_pos.begin(), b.own_pos.end());
  return r;
}

LmKvCache lm_cache_select(const LmKvCache& c, const std::vector<int64_t>& slots) {
  LmKvCache r;
  r.embed = c.embed;
  const size_t L = c.k.size(), E = static_cast<size_t>(c.embed);
  r.k.resize(L), r.v.resize(L), r.h.resize(L);
  for (int64_t j : slots) {
    if (j < 0 || j >= c.size())
      throw InputError("cache slot " + std::to_string(j) + ": the cache has " +
                       std::to_string(c.size()) + " slots");
    const size_t o = static_cast<size_t>(j) * E;
    for (size_t l = 0; l < L; ++l) {
      r.k[l].insert(r.k[l].end(), c.k[l].begin() + o, c.k[l].begin() + o + E);
      r.v[l].insert(r.v[l].end(), c.v[l].begin() + o, c.v[l].begin() + o + E);
      r.h[l].insert(r.h[l].end(), c.h[l].begin() + o, c.h[l].begin() + o + E);
    }
    r.key_pos.push_back(c.key_pos[j]);
    r.own_pos.push_back(c.own_pos[j]);
  }
  return r;
}

void lm_cache_erase(LmKvCache& c, int64_t j) {
  const auto E = static_cast<int64_t>(c.embed);
  for (size_t l = 0; l < c.k.size(); ++l) {
    c.k[l].erase(c.k[l].begin() + j * E, c.k[l].begin() + (j + 1) * E);
    c.v[l].erase(c.v[l].begin() + j * E, c.v[l].begin() + (j + 1) * E);
    c.h[l].erase(c.h[l].begin() + j * E, c.h[l].begin() + (j + 1) * E);
  }
  c.key_pos.erase(c.key_pos.begin() + j);
  c.own_pos.erase(c.own_pos.begin() + j);
}

bool lm_cache_reencode_applies(LmPosition p) {
  return p == LmPosition::rope || p == LmPosition::alibi || p == LmPosition::t5 ||
         p == LmPosition::none;
}

void lm_cache_reencode(const LmModel& m, LmKvCache& c, const std::vector<int64_t>& new_pos) {
  const LmConfig& cfg = m.config();
  if (!lm_cache_reencode_applies(cfg.position))
    throw InputError(std::string("re-encoding cached keys of a ") + lm_position_name(cfg.position) +
                     " model: its positions are added at block 0 and mixed into every key");
  if (static_cast<int64_t>(new_pos.size()) != c.size())
    throw InputError("re-encoding " + std::to_string(c.size()) + " slots to " +
                     std::to_string(new_pos.size()) + " positions");
  const int E = cfg.embed;
  if (cfg.position == LmPosition::rope) {
    // rows of 3E so the rotation reads keys at column E, as in the forward
    std::vector<float> row(static_cast<size_t>(3 * E));
    LmCacheRope rope(cfg, m.scaling(), false);
    for (size_t l = 0; l < c.k.size(); ++l)
      for (int64_t j = 0; j < c.size(); ++j) {
        if (c.key_pos[j] == new_pos[j]) continue;
        float* kj = c.k[l].data() + j * E;
        std::copy(kj, kj + E, row.begin() + E);
        rope.rotate(row.data(), E, c.key_pos[j], true);
        rope.rotate(row.data(), E, new_pos[j], false);
        std::copy(row.begin() + E, row.begin() + 2 * E, kj);
      }
  }
  c.key_pos = new_pos;
}

}  // namespace poslab::lm
