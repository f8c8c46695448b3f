// The KV lab's transformer: weights from a portable seeded generator, the full forward
// pass (ground truth, explicit (T, T) masked scores) and cached decoding (new rows against
// every cached slot). Both share only the per-token pieces (embedding, LayerNorm, MLP).
#include "core/kv/kv_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/common/random.hpp"
#include "core/kv/kv_cache.hpp"
#include "core/kv/kv_forward_run.hpp"
#include "core/kv/kv_messages.hpp"
#include "core/rope/rope_table.hpp"

namespace poslab {
namespace {

// Normals in pairs from a SplitMix64 stream (core/common/random.hpp): the same weights
// for a seed on every platform. The seeding and the (k + 1) / 2^53 form of u1 are kept
// from before the random module existed, so every KV experiment's numbers are unchanged.
class SeededNormal {
 public:
  explicit SeededNormal(uint64_t seed) : stream_(seed * kSplitMix64Gamma + 0x632BE59BD9B4E019ull) {}
  double operator()() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = (static_cast<double>(stream_.next_u64() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = stream_.uniform();                                                  // [0, 1)
    const auto [a, b] = box_muller(u1, u2);
    spare_ = b;
    has_spare_ = true;
    return a;
  }

 private:
  SplitMix64 stream_;
  double spare_ = 0;
  bool has_spare_ = false;
};

Eigen::MatrixXd random_matrix(SeededNormal& g, int rows, int cols, double std) {
  Eigen::MatrixXd m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = std * g();
  return m;
}

Eigen::RowVectorXd random_row(SeededNormal& g, int n, double mean, double std) {
  Eigen::RowVectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = mean + std * g();
  return v;
}

RowMatrix layer_norm(const KvModel& m, const RowMatrix& x, const Eigen::RowVectorXd& gain,
                     const Eigen::RowVectorXd& bias) {
  if (!m.params.layer_norm) return x;
  RowMatrix y(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const double mean = x.row(t).mean();
    const double var = (x.row(t).array() - mean).square().mean();
    y.row(t) =
        ((x.row(t).array() - mean) / std::sqrt(var + 1e-5)).matrix().cwiseProduct(gain) + bias;
  }
  return y;
}

RowMatrix affine(const RowMatrix& x, const Eigen::MatrixXd& w, const Eigen::RowVectorXd& b) {
  RowMatrix y = x * w;
  y.rowwise() += b;
  return y;
}

// x + MLP(LN2(x)) with the tanh-approximated GELU.
RowMatrix add_mlp(const KvModel& m, const KvLayerWeights& L, const RowMatrix& x) {
  RowMatrix h = affine(layer_norm(m, x, L.ln2_gain, L.ln2_bias), L.w1, L.b1);
  const double c = std::sqrt(2.0 / std::numbers::pi);
  h = (0.5 * h.array() * (1.0 + (c * (h.array() + 0.044715 * h.array().cube())).tanh())).matrix();
  return x + affine(h, L.w2, L.b2);
}

RowMatrix embed(const KvModel& m, const std::vector<int>& tokens,
                const std::vector<double>& positions) {
  const KvModelParams& p = m.params;
  if (tokens.size() != positions.size())
    throw InputError(std::to_string(tokens.size()) + " tokens but " +
                     std::to_string(positions.size()) + " positions: give one position per token");
  RowMatrix x(tokens.size(), p.width);
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] < 0 || tokens[t] >= p.vocab)
      throw InputError("token id " + std::to_string(tokens[t]) + " is outside the vocabulary 0.." +
                       std::to_string(p.vocab - 1));
    x.row(t) = m.token_embedding.row(tokens[t]);
    if (p.positions == KvPositions::learned) {
      const double pos = positions[t];
      if (!(pos >= 0 && pos <= p.context - 1 && pos == std::floor(pos)))
        throw InputError(
            "position " + format_double(pos) + " has no learned embedding: the table has rows 0.." +
            std::to_string(p.context - 1) + " (context = " + std::to_string(p.context) +
            "); slide the window or use RoPE");
      x.row(t) += m.position_embedding.row(static_cast<int>(pos));
    }
  }
  return x;
}

void require_tokens(const std::vector<int>& tokens) {
  if (tokens.empty()) throw InputError("forward pass: no tokens given");
}

// Numerically stable softmax of one row restricted to its first n entries (rest = 0).
void softmax_prefix(Eigen::Ref<Eigen::RowVectorXd> row, Eigen::Index n) {
  const double mx = row.head(n).maxCoeff();
  double sum = 0;
  for (Eigen::Index j = 0; j < n; ++j) sum += (row[j] = std::exp(row[j] - mx));
  row.head(n) /= sum;
  row.tail(row.size() - n).setZero();
}

}  // namespace

void kv_model_validate(const KvModelParams& p) {
  require_in_range("layers", p.layers, KvModelParams::layers_range);
  require_in_range("width", p.width, KvModelParams::width_range);
  require_in_range("heads", p.heads, KvModelParams::heads_range);
  if (p.width % p.heads != 0 || (p.width / p.heads) % 2 != 0)
    throw InputError(
        kv_message("kv.message.width_heads", {message_arg("width", std::to_string(p.width)),
                                              message_arg("heads", std::to_string(p.heads))}));
  require_in_range("vocab", p.vocab, KvModelParams::vocab_range);
  require_in_range("context", p.context, KvModelParams::context_range);
  if (p.context % 2 != 0)
    throw InputError(
        kv_message("kv.message.context_even", {message_arg("context", std::to_string(p.context))}));
  require_in_range("position_std", p.position_std, KvModelParams::position_std_range);
  require_in_range("attention_gain", p.attention_gain, KvModelParams::attention_gain_range);
  require_in_range("seed", p.seed, KvModelParams::seed_range);
  rope_validate(kv_rope_params(p));
}

int kv_head_dim(const KvModelParams& p) {
  return p.width / p.heads;
}

RopeParams kv_rope_params(const KvModelParams& p) {
  RopeParams r = p.rope;
  r.head_dim = p.heads > 0 ? p.width / p.heads : p.width;
  return r;
}

double kv_rope_table_scale(const KvModelParams& p) {
  return rope_attention_scale(kv_rope_params(p));
}

KvModel kv_model_make(const KvModelParams& p) {
  kv_model_validate(p);
  SeededNormal g(static_cast<uint64_t>(p.seed));
  const int w = p.width;
  const double s = 1.0 / std::sqrt(static_cast<double>(w));
  KvModel m;
  m.params = p;
  m.token_embedding = random_matrix(g, p.vocab, w, 1.0);
  m.position_embedding = p.positions == KvPositions::learned
                             ? RowMatrix(random_matrix(g, p.context, w, p.position_std))
                             : RowMatrix(0, w);
  for (int l = 0; l < p.layers; ++l) {
    KvLayerWeights L;
    L.ln1_gain = random_row(g, w, 1.0, 0.1);
    L.ln1_bias = random_row(g, w, 0.0, 0.1);
    L.wq = random_matrix(g, w, w, s * p.attention_gain);
    L.wk = random_matrix(g, w, w, s * p.attention_gain);
    L.wv = random_matrix(g, w, w, s);
    L.wo = random_matrix(g, w, w, s);
    L.bq = random_row(g, w, 0.0, 0.1);
    L.bk = random_row(g, w, 0.0, 0.1);
    L.bv = random_row(g, w, 0.0, 0.1);
    L.bo = random_row(g, w, 0.0, 0.1);
    L.ln2_gain = random_row(g, w, 1.0, 0.1);
    L.ln2_bias = random_row(g, w, 0.0, 0.1);
    L.w1 = random_matrix(g, w, 4 * w, s);
    L.b1 = random_row(g, 4 * w, 0.0, 0.1);
    L.w2 = random_matrix(g, 4 * w, w, 0.5 * s);
    L.b2 = random_row(g, w, 0.0, 0.1);
    m.layers.push_back(std::move(L));
  }
  m.lnf_gain = random_row(g, w, 1.0, 0.1);
  m.lnf_bias = random_row(g, w, 0.0, 0.1);
  m.unembed = random_matrix(g, w, p.vocab, s);
  return m;
}

RowMatrix kv_rotate_heads(const KvModel& m, const RowMatrix& x,
                          const std::vector<double>& positions) {
  if (m.params.positions != KvPositions::rope) return x;
  // One table (validation, frequencies, cos/sin) for every head.
  const RopeTable table(kv_rope_params(m.params), positions, /*temperature_in_tables=*/true);
  const int d = table.params().head_dim;
  if (static_cast<size_t>(x.rows()) != positions.size())
    throw InputError("x has " + std::to_string(x.rows()) + " rows but " +
                     std::to_string(positions.size()) + " positions were given");
  RowMatrix out = x;
  for (int h = 0; h < m.params.heads; ++h) table.apply(out.middleCols(h * d, d));
  return out;
}

double kv_relative_error(const RowMatrix& a, const RowMatrix& b) {
  if (a.size() == 0 && b.size() == 0) return 0.0;
  const double nb = b.norm(), diff = (a - b).norm();
  return nb > 0 ? diff / nb : diff;
}

KvTrace kv_forward_full(const KvModel& m, const std::vector<int>& tokens,
                        const std::vector<double>& positions, KvCache* cache_out,
                        bool float32_cache) {
  KvForwardRun run(m, tokens, positions, cache_out != nullptr, float32_cache);
  while (!run.done()) run.step();
  if (cache_out) *cache_out = run.take_cache();
  return run.take_trace();
}

// Columns per block of the MLP's and the logits' products: a multiple of every GEMM
// kernel's panel width (Eigen's 3 packets of 1, 2, 4 or 8 doubles, 4 or 8 columns), so a
// block's columns are computed as in the whole product, bit for bit.
constexpr int kKvColumnBlock = 96;

KvForwardRun::KvForwardRun(const KvModel& m, std::vector<int> tokens, std::vector<double> positions,
                           bool with_cache, bool float32_cache)
    : m_(m), tokens_(std::move(tokens)), positions_(std::move(positions)), with_cache_(with_cache) {
  require_tokens(tokens_);
  if (with_cache_) cache_ = kv_cache_make(m.params.layers, m.params.width, float32_cache);
}

void KvForwardRun::step() {
  if (done_) return;
  const KvModelParams& p = m_.params;
  if (layer_ < 0) {
    x_ = embed(m_, tokens_, positions_);
    layer_ = 0;
  } else if (layer_ < p.layers) {
    layer_piece();
  } else {
    // logits (T, V) = LN_f(x) · unembed, in column blocks of the vocabulary
    const int V = p.vocab, c0 = piece_ * kKvColumnBlock, n = std::min(kKvColumnBlock, V - c0);
    if (piece_ == 0) {
      h_ = layer_norm(m_, x_, m_.lnf_gain, m_.lnf_bias);
      tr_.logits.resize(x_.rows(), V);
    }
    tr_.logits.middleCols(c0, n) = h_ * m_.unembed.middleCols(c0, n);
    if (++piece_ * kKvColumnBlock >= V) {
      if (with_cache_) kv_cache_append_slots(cache_, tokens_, positions_);
      done_ = true;
    }
  }
}

// Pieces of layer l: 0 K, 1 Q (both rotated now), 2 V, then one per head's attention, the
// output projection, the MLP's up-projection (W -> 4W) and down-projection (4W -> W) in
// column blocks.
void KvForwardRun::layer_piece() {
  const KvModelParams& p = m_.params;
  const KvLayerWeights& L = m_.layers[layer_];
  const int T = static_cast<int>(tokens_.size()), d = kv_head_dim(p), H = p.heads;
  const int W = p.width, up_blocks = (4 * W + kKvColumnBlock - 1) / kKvColumnBlock;
  const int down_blocks = (W + kKvColumnBlock - 1) / kKvColumnBlock;
  const int k = piece_++;
  if (k == 0) {
    h_ = layer_norm(m_, x_, L.ln1_gain, L.ln1_bias);
    k_raw_ = affine(h_, L.wk, L.bk);
  } else if (k == 1) {
    q_ = kv_rotate_heads(m_, affine(h_, L.wq, L.bq), positions_);
    k_ = kv_rotate_heads(m_, k_raw_, positions_);
  } else if (k == 2) {
    v_ = affine(h_, L.wv, L.bv);
    o_.resize(T, W);
    att_last_.resize(H, T);
  } else if (k < 3 + H) {
    const int hd = k - 3;
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(d));
    // scores is (T, T): query t may see keys 0..t.
    RowMatrix scores = q_.middleCols(hd * d, d) * k_.middleCols(hd * d, d).transpose() * inv_sqrt_d;
    for (int t = 0; t < T; ++t) softmax_prefix(scores.row(t), t + 1);
    o_.middleCols(hd * d, d) = scores * v_.middleCols(hd * d, d);
    att_last_.row(hd) = scores.row(T - 1);
  } else if (k == 3 + H) {
    xmid_ = x_ + affine(o_, L.wo, L.bo);
    h_ = layer_norm(m_, xmid_, L.ln2_gain, L.ln2_bias);
    up_.resize(T, 4 * W);
  } else if (k < 4 + H + up_blocks) {
    // up = GELU(h · w1 + b1), the tanh-approximated GELU of add_mlp
    const int c0 = (k - 4 - H) * kKvColumnBlock, n = std::min(kKvColumnBlock, 4 * W - c0);
    RowMatrix u = h_ * L.w1.middleCols(c0, n);
    u.rowwise() += L.b1.segment(c0, n);
    const double c = std::sqrt(2.0 / std::numbers::pi);
    up_.middleCols(c0, n) =
        (0.5 * u.array() * (1.0 + (c * (u.array() + 0.044715 * u.array().cube())).tanh())).matrix();
  } else {
    // x = xmid + up · w2 + b2
    const int c0 = (k - 4 - H - up_blocks) * kKvColumnBlock, n = std::min(kKvColumnBlock, W - c0);
    RowMatrix y = up_ * L.w2.middleCols(c0, n);
    y.rowwise() += L.b2.segment(c0, n);
    x_.middleCols(c0, n) = xmid_.middleCols(c0, n) + y;
    if (k + 1 == 4 + H + up_blocks + down_blocks) {
      tr_.layer_out.push_back(x_);
      tr_.keys_raw.push_back(std::move(k_raw_));
      tr_.attention_last.push_back(att_last_);
      if (with_cache_) kv_cache_append_rows(cache_, layer_, k_, v_);
      ++layer_;
      piece_ = 0;
    }
  }
}

KvTrace kv_forward_cached(const KvModel& m, KvCache& cache, const std::vector<int>& tokens,
                          const std::vector<double>& positions) {
  require_tokens(tokens);
  const KvModelParams& p = m.params;
  if (static_cast<int>(cache.layers.size()) != p.layers)
    throw InputError("cache has " + std::to_string(cache.layers.size()) +
                     " layers but the model has " + std::to_string(p.layers));
  const int T = static_cast<int>(tokens.size()), S = kv_cache_size(cache), d = kv_head_dim(p);
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(d));
  RowMatrix x = embed(m, tokens, positions);
  KvTrace tr;
  for (int l = 0; l < p.layers; ++l) {
    const KvLayerWeights& L = m.layers[l];
    const RowMatrix h = layer_norm(m, x, L.ln1_gain, L.ln1_bias);
    const RowMatrix k_raw = affine(h, L.wk, L.bk);
    const RowMatrix q = kv_rotate_heads(m, affine(h, L.wq, L.bq), positions);
    kv_cache_append_rows(cache, l, kv_rotate_heads(m, k_raw, positions), affine(h, L.wv, L.bv));
    const RowMatrix& K = cache.layers[l].keys;    // (S + T, W)
    const RowMatrix& V = cache.layers[l].values;  // (S + T, W)
    RowMatrix o(T, p.width);
    RowMatrix att_last(p.heads, S + T);
    for (int hd = 0; hd < p.heads; ++hd) {
      // scores is (T, S + T): new token t sees every cached slot and new tokens 0..t.
      RowMatrix scores = q.middleCols(hd * d, d) * K.middleCols(hd * d, d).transpose() * inv_sqrt_d;
      for (int t = 0; t < T; ++t) softmax_prefix(scores.row(t), S + t + 1);
      o.middleCols(hd * d, d) = scores * V.middleCols(hd * d, d);
      att_last.row(hd) = scores.row(T - 1);
    }
    x = x + affine(o, L.wo, L.bo);
    x = add_mlp(m, L, x);
    tr.layer_out.push_back(x);
    tr.keys_raw.push_back(k_raw);
    tr.attention_last.push_back(att_last);
  }
  kv_cache_append_slots(cache, tokens, positions);
  tr.logits = layer_norm(m, x, m.lnf_gain, m.lnf_bias) * m.unembed;
  return tr;
}

}  // namespace poslab
