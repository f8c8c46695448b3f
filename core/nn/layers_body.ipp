// Body of the world model's layer kernels (layers.hpp has the shapes), compiled twice: once
// plainly (layers.cpp) and once with AVX2+FMA (layers_avx2.cpp), chosen at run time by
// layers.cpp. The includer defines POSLAB_NN_NS (a namespace for this copy) and
// POSLAB_EIGEN (the Eigen namespace it included under). Linear layers use Eigen's matrix
// products on row-major maps; the rest are plain loops. Kernels that the dispatcher splits
// over threads take the row (or column) range [r0, r1) of one chunk: threads, like every
// other standard-library template, stay in the plain build (a template compiled with AVX2
// here could be the copy the linker keeps for everyone).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/nn/layers_kernels.hpp"

namespace POSLAB_NN_NS {

using nn::AttnGroup;
template <class S>
using Mat =
    POSLAB_EIGEN::Matrix<S, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::RowMajor>;
template <class S>
using Row = POSLAB_EIGEN::Matrix<S, 1, POSLAB_EIGEN::Dynamic>;

// exp for the float layers: range reduction x = n ln2 + r, |r| <= ln2/2, a degree-6
// polynomial for e^r (Taylor/Cephes coefficients, relative error ~2e-7), then 2^n through
// the exponent bits. Branch-free, so the loops below vectorise (libm's expf does not);
// the double build (gradient checks) uses std::exp.
inline float exp_approx(float x) {
  x = std::min(88.0f, std::max(-87.0f, x));
  // round to nearest by adding and removing 1.5 * 2^23 (no libm call: the loop vectorises)
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;  // 2^n; memcpy is std::bit_cast (absent from the web build's libc++), no template
  std::memcpy(&scale, &bits, sizeof scale);  // instantiated in this AVX2 unit
  return p * scale;
}
template <class S>
inline S exp_fast(S x) {
  if constexpr (std::is_same_v<S, float>)
    return exp_approx(x);
  else
    return std::exp(x);
}
// tanh(u) = 1 - 2 / (e^{2u} + 1): exact limits +-1, absolute error ~2e-7 near 0.
template <class S>
inline S tanh_fast(S u) {
  if constexpr (std::is_same_v<S, float>)
    return 1.0f - 2.0f / (exp_approx(2.0f * u) + 1.0f);
  else
    return std::tanh(u);
}

// out rows [r0, r1) of linear_forward.
template <class S>
void linear_forward_rows(S* out, const S* in, const S* w, const S* b, int64_t r0, int64_t r1, int I,
                         int O) {
  // Every M through Eigen's GEMM, the few rows of a dream step too: with AVX2 + FMA it beats
  // a coefficient-wise product there (one dream step of the tiny model 350 -> 295 us, the
  // paper model 1.95 -> 1.66 ms; docs/performance.md).
  const POSLAB_EIGEN::Map<const Mat<S>> W(w, O, I);
  const POSLAB_EIGEN::Map<const Mat<S>> X(in + r0 * I, r1 - r0, I);
  POSLAB_EIGEN::Map<Mat<S>> Y(out + r0 * O, r1 - r0, O);
  Y.noalias() = X * W.transpose();
  if (b) Y.rowwise() += POSLAB_EIGEN::Map<const Row<S>>(b, O);
}

// Rows [m, m + R) of linear_forward_p_rows. Each row's 16 running sums of a panel are two
// fixed-size Eigen arrays of 8 (vector registers for float: 4 rows x 2 = 8 sums, 2 weight
// loads and 4 broadcasts per 8 multiply-adds), and the panel is read in order.
template <class S, int R>
void linear_forward_p_block(S* out, const S* in, const S* wp, const S* b, int64_t m, int I, int O) {
  constexpr int P = nn::kPanel, H = P / 2;
  using Half = POSLAB_EIGEN::Array<S, H, 1>;
  const int panels = O / P, tail = O % P;
  for (int p = 0; p < panels; ++p) {
    const S* w = wp + static_cast<int64_t>(p) * I * P;
    Half lo[R], hi[R];
    for (int r = 0; r < R; ++r) lo[r].setZero(), hi[r].setZero();
    for (int i = 0; i < I; ++i) {
      const POSLAB_EIGEN::Map<const Half> wl(w + static_cast<int64_t>(i) * P);
      const POSLAB_EIGEN::Map<const Half> wh(w + static_cast<int64_t>(i) * P + H);
      for (int r = 0; r < R; ++r) {
        const S x = in[(m + r) * I + i];
        lo[r] += x * wl;
        hi[r] += x * wh;
      }
    }
    const Half blo = b ? Half(POSLAB_EIGEN::Map<const Half>(b + p * P)) : Half(Half::Zero());
    const Half bhi = b ? Half(POSLAB_EIGEN::Map<const Half>(b + p * P + H)) : Half(Half::Zero());
    for (int r = 0; r < R; ++r) {
      S* y = out + (m + r) * O + p * P;
      POSLAB_EIGEN::Map<Half> ylo(y), yhi(y + H);
      ylo = lo[r] + blo;
      yhi = hi[r] + bhi;
    }
  }
  const S* w = wp + static_cast<int64_t>(panels) * I * P;  // the last O % 16: (I, tail)
  using Quad = POSLAB_EIGEN::Array<S, 4, 1>;
  int t = 0;
  for (; t + 4 <= tail; t += 4) {  // 4 at a time (a head's 12 logits, a bias MLP's 4 heads)
    Quad acc[R];
    for (auto& a : acc) a.setZero();
    for (int i = 0; i < I; ++i) {
      const POSLAB_EIGEN::Map<const Quad> wi(w + static_cast<int64_t>(i) * tail + t);
      for (int r = 0; r < R; ++r) acc[r] += in[(m + r) * I + i] * wi;
    }
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 4; ++j) {
        const int o = panels * P + t + j;
        out[(m + r) * O + o] = acc[r][j] + (b ? b[o] : S(0));
      }
  }
  for (; t < tail; ++t)
    for (int r = 0; r < R; ++r) {
      S acc = 0;
      for (int i = 0; i < I; ++i)
        acc += in[(m + r) * I + i] * w[static_cast<int64_t>(i) * tail + t];
      const int o = panels * P + t;
      out[(m + r) * O + o] = acc + (b ? b[o] : S(0));
    }
}

// out rows [r0, r1) of linear_forward_p: in (M, I) · W + b with W read from its panels
// (params_panels), so nothing is packed per call (a dream step has 8 rows; Eigen's product
// re-packs the whole weight for them each time). 4 rows at a time; a panel read for the
// first 4 rows is still in the cache for the next. Each output is one running sum over i
// in order, then + b.
template <class S>
void linear_forward_p_rows(S* out, const S* in, const S* wp, const S* b, int64_t r0, int64_t r1,
                           int I, int O) {
  int64_t m = r0;
  for (; m + 6 <= r1; m += 6) linear_forward_p_block<S, 6>(out, in, wp, b, m, I, O);
  if (m + 4 <= r1) linear_forward_p_block<S, 4>(out, in, wp, b, m, I, O), m += 4;
  if (m + 2 <= r1) linear_forward_p_block<S, 2>(out, in, wp, b, m, I, O), m += 2;
  if (m < r1) linear_forward_p_block<S, 1>(out, in, wp, b, m, I, O);
}

// din rows [r0, r1) of linear_backward.
template <class S>
void linear_backward_din_rows(S* din, const S* dout, const S* w, int64_t r0, int64_t r1, int I,
                              int O) {
  const POSLAB_EIGEN::Map<const Mat<S>> W(w, O, I);
  const POSLAB_EIGEN::Map<const Mat<S>> DY(dout + r0 * O, r1 - r0, O);
  POSLAB_EIGEN::Map<Mat<S>> DX(din + r0 * I, r1 - r0, I);
  DX.noalias() += DY * W;
}

// Weight and bias gradient rows [o0, o1) of linear_backward, each a full reduction over M.
template <class S>
void linear_backward_dw_rows(S* dw, S* db, const S* dout, const S* in, int64_t M, int I, int O,
                             int64_t o0, int64_t o1) {
  const POSLAB_EIGEN::Map<const Mat<S>> DY(dout, M, O);
  const POSLAB_EIGEN::Map<const Mat<S>> X(in, M, I);
  POSLAB_EIGEN::Map<Mat<S>> DW(dw + o0 * I, o1 - o0, I);
  DW.noalias() += DY.middleCols(o0, o1 - o0).transpose() * X;
  if (db)  // rows in order (Eigen's reductions peel by address: bits would vary)
    for (int64_t m = 0; m < M; ++m) {
      const S* dy = dout + m * O;
      for (int64_t o = o0; o < o1; ++o) db[o] += dy[o];
    }
}

// Rows [r0, r1) of layernorm_forward.
template <class S>
void layernorm_forward_rows(S* out, S* mean, S* rstd, const S* in, const S* w, const S* b,
                            int64_t r0, int64_t r1, int C, S eps) {
  for (int64_t m = r0; m < r1; ++m) {
    const S* x = in + m * C;
    S mu = 0;
    for (int c = 0; c < C; ++c) mu += x[c];
    mu /= C;
    S var = 0;
    for (int c = 0; c < C; ++c) var += (x[c] - mu) * (x[c] - mu);
    var /= C;
    const S rs = S(1) / std::sqrt(var + eps);
    S* y = out + m * C;
    for (int c = 0; c < C; ++c) y[c] = (x[c] - mu) * rs * w[c] + b[c];
    mean[m] = mu;
    rstd[m] = rs;
  }
}

// din rows [r0, r1) of layernorm_backward.
template <class S>
void layernorm_backward_din_rows(S* din, const S* dout, const S* in, const S* mean, const S* rstd,
                                 const S* w, int64_t r0, int64_t r1, int C) {
  for (int64_t m = r0; m < r1; ++m) {
    const S* x = in + m * C;
    const S* dy = dout + m * C;
    const S mu = mean[m], rs = rstd[m];
    S dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int c = 0; c < C; ++c) {
      const S norm = (x[c] - mu) * rs;
      const S dnorm = dy[c] * w[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    S* dx = din + m * C;
    for (int c = 0; c < C; ++c) {
      const S norm = (x[c] - mu) * rs;
      const S dnorm = dy[c] * w[c];
      dx[c] += rs * (dnorm - dnorm_mean - norm * dnorm_norm_mean);
    }
  }
}

// Parameter gradients of channels [c0, c1) of layernorm_backward, rows summed in order.
template <class S>
void layernorm_backward_dw_cols(S* dw, S* db, const S* dout, const S* in, const S* mean,
                                const S* rstd, int64_t M, int C, int64_t c0, int64_t c1) {
  for (int64_t m = 0; m < M; ++m) {
    const S* x = in + m * C;
    const S* dy = dout + m * C;
    for (int64_t c = c0; c < c1; ++c) {
      dw[c] += dy[c] * (x[c] - mean[m]) * rstd[m];
      db[c] += dy[c];
    }
  }
}

template <class S>
constexpr S kGeluK = S(0.7978845608028654);  // sqrt(2/pi)
template <class S>
constexpr S kGeluA = S(0.044715);

template <class S>
void gelu_forward(S* out, const S* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const S z = in[i];
    out[i] = S(0.5) * z * (S(1) + tanh_fast(kGeluK<S> * (z + kGeluA<S> * z * z * z)));
  }
}

template <class S>
void gelu_backward(S* din, const S* dout, const S* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const S z = in[i];
    const S t = tanh_fast(kGeluK<S> * (z + kGeluA<S> * z * z * z));
    const S d = S(0.5) * (S(1) + t) +
                S(0.5) * z * (S(1) - t * t) * kGeluK<S> * (S(1) + S(3) * kGeluA<S> * z * z);
    din[i] += d * dout[i];
  }
}

template <class S>
void silu_forward(S* out, const S* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] / (S(1) + exp_fast(-in[i]));
}

template <class S>
void silu_backward(S* din, const S* dout, const S* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const S sg = S(1) / (S(1) + exp_fast(-in[i]));
    din[i] += dout[i] * sg * (S(1) + in[i] * (S(1) - sg));
  }
}

template <class S>
void rope_forward(S* x, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                  const int* pos) {
  const int half = D / 2;
  for (int64_t m = 0; m < M; ++m) {
    const S* c = cs + static_cast<int64_t>(pos[m]) * half;
    const S* s = sn + static_cast<int64_t>(pos[m]) * half;
    for (int h = 0; h < H; ++h) {
      S* v = x + m * ld + col0 + h * D;
      for (int i = 0; i < half; ++i) {
        const S a = v[i], b = v[i + half];
        v[i] = a * c[i] - b * s[i];
        v[i + half] = a * s[i] + b * c[i];
      }
    }
  }
}

template <class S>
void rope_backward(S* dx, int64_t M, int64_t ld, int col0, int H, int D, const S* cs, const S* sn,
                   const int* pos) {
  const int half = D / 2;
  for (int64_t m = 0; m < M; ++m) {
    const S* c = cs + static_cast<int64_t>(pos[m]) * half;
    const S* s = sn + static_cast<int64_t>(pos[m]) * half;
    for (int h = 0; h < H; ++h) {
      S* v = dx + m * ld + col0 + h * D;
      for (int i = 0; i < half; ++i) {
        const S a = v[i], b = v[i + half];
        v[i] = a * c[i] + b * s[i];
        v[i + half] = -a * s[i] + b * c[i];
      }
    }
  }
}

// DC: the head dim as a compile-time constant (0 = read it at run time); with it the loops
// over d unroll into a few vector instructions.
template <class S, int DC>
void attention_forward_impl(S* out, S* probs, const S* qkv, int E, int H, AttnGroup g, bool causal,
                            const uint8_t* key_visible, const S* bias) {
  const int D = DC > 0 ? DC : E / H, L = g.len;
  const S scale = S(1) / std::sqrt(static_cast<S>(D));
  const int64_t ld = 3 * static_cast<int64_t>(E);
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < L; ++i) {
      const S* q = qkv + (g.row0 + i * g.stride) * ld + h * D;
      S* p = probs + (static_cast<int64_t>(h) * L + i) * L;
      const int jend = causal ? i + 1 : L;
      S mx = -std::numeric_limits<S>::infinity();
      for (int j = 0; j < L; ++j) {
        if (j >= jend || (key_visible && !key_visible[j])) {
          p[j] = 0;
          continue;
        }
        const S* k = qkv + (g.row0 + j * g.stride) * ld + E + h * D;
        S s = 0;
        for (int d = 0; d < D; ++d) s += q[d] * k[d];
        s *= scale;
        if (bias) s += bias[(static_cast<int64_t>(i) * L + j) * H + h];
        p[j] = s;
        mx = std::max(mx, s);
      }
      S* o = out + (g.row0 + i * g.stride) * E + h * D;
      for (int d = 0; d < D; ++d) o[d] = 0;
      if (mx == -std::numeric_limits<S>::infinity()) continue;  // no visible key
      S sum = 0;
      for (int j = 0; j < jend; ++j) {
        if (key_visible && !key_visible[j]) continue;
        p[j] = exp_fast(p[j] - mx);
        sum += p[j];
      }
      const S inv = S(1) / sum;
      for (int j = 0; j < jend; ++j) {
        if (key_visible && !key_visible[j]) continue;
        p[j] *= inv;
        const S* v = qkv + (g.row0 + j * g.stride) * ld + 2 * E + h * D;
        for (int d = 0; d < D; ++d) o[d] += p[j] * v[d];
      }
    }
  }
}

// One head of one query against L cached keys and values (decoding): the scaled scores
// q·k_j, a max-subtracted softmax (the exp of attention_forward) and the weighted sum of
// the values. The keys come transposed (row d holds coordinate d of every key), so 16
// scores at a time are running sums over d in order, in vector registers; for the head
// sizes the models use (DC = 16, 32) the weighted sum is two fixed-size Eigen arrays (the
// even and the odd keys), added at the end.
template <class S, int DC>
void attention_decode_impl(S* out, S* probs, const S* q, const S* kt, int64_t ldk, const S* v,
                           int64_t ld, int L, int D_, S scale, S* scores) {
  const int D = DC > 0 ? DC : D_;
  using Keys = POSLAB_EIGEN::Array<S, 16, 1>;  // 16 scores held in a register pair
  using KeyMap = POSLAB_EIGEN::Map<const Keys>;
  int j0 = 0;
  for (; j0 + 64 <= L; j0 += 64) {  // 4 independent sums: the multiply-adds overlap
    Keys a0 = Keys::Zero(), a1 = Keys::Zero(), a2 = Keys::Zero(), a3 = Keys::Zero();
    for (int d = 0; d < D; ++d) {
      const S* row = kt + d * ldk + j0;
      a0 += q[d] * KeyMap(row), a1 += q[d] * KeyMap(row + 16);
      a2 += q[d] * KeyMap(row + 32), a3 += q[d] * KeyMap(row + 48);
    }
    POSLAB_EIGEN::Map<Keys>(scores + j0) = a0, POSLAB_EIGEN::Map<Keys>(scores + j0 + 16) = a1;
    POSLAB_EIGEN::Map<Keys>(scores + j0 + 32) = a2, POSLAB_EIGEN::Map<Keys>(scores + j0 + 48) = a3;
  }
  for (; j0 + 16 <= L; j0 += 16) {
    Keys a = Keys::Zero();
    for (int d = 0; d < D; ++d) a += q[d] * KeyMap(kt + d * ldk + j0);
    POSLAB_EIGEN::Map<Keys>(scores + j0) = a;
  }
  for (; j0 < L; ++j0) {
    S a = 0;
    for (int d = 0; d < D; ++d) a += q[d] * kt[d * ldk + j0];
    scores[j0] = a;
  }
  // Eigen's reductions over a dynamic map start at the first aligned address, so their
  // order (and last bits) would depend on where the scratch lives: fixed orders here.
  S mx = -std::numeric_limits<S>::infinity();
  for (int j = 0; j < L; ++j) mx = std::max(mx, scores[j] *= scale);
  for (int j = 0; j < L; ++j) scores[j] = exp_fast(scores[j] - mx);  // vectorises
  S p[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // 8 running sums, added pairwise at the end
  int j8 = 0;
  for (; j8 + 8 <= L; j8 += 8)
    for (int l = 0; l < 8; ++l) p[l] += scores[j8 + l];
  S sum = ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7]));
  for (; j8 < L; ++j8) sum += scores[j8];
  const S inv = S(1) / sum;
  for (int j = 0; j < L; ++j) scores[j] *= inv;
  if (probs) std::copy_n(scores, L, probs);
  if constexpr (DC > 0) {
    using Head = POSLAB_EIGEN::Array<S, DC, 1>;
    using HeadMap = POSLAB_EIGEN::Map<const Head>;
    Head o0 = Head::Zero(), o1 = Head::Zero();  // even and odd keys: two chains overlap
    int j = 0;
    for (; j + 2 <= L; j += 2) {
      o0 += scores[j] * HeadMap(v + j * ld);
      o1 += scores[j + 1] * HeadMap(v + (j + 1) * ld);
    }
    if (j < L) o0 += scores[j] * HeadMap(v + j * ld);
    POSLAB_EIGEN::Map<Head> y(out);
    y = o0 + o1;
  } else {
    std::fill(out, out + D, S(0));
    for (int j = 0; j < L; ++j)
      for (int i = 0; i < D; ++i) out[i] += scores[j] * v[j * ld + i];
  }
}

template <class S, int DC>
void attention_backward_impl(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                             int H, AttnGroup g, S* dp) {
  const int D = DC > 0 ? DC : E / H, L = g.len;
  const S scale = S(1) / std::sqrt(static_cast<S>(D));
  const int64_t ld = 3 * static_cast<int64_t>(E);
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < L; ++i) {
      const S* p = probs + (static_cast<int64_t>(h) * L + i) * L;
      const int64_t ri = g.row0 + i * g.stride;
      const S* dy = dout + ri * E + h * D;
      // dP_ij = dy_i · v_j, dv_j += P_ij dy_i
      S psum = 0;
      for (int j = 0; j < L; ++j) {
        dp[j] = 0;
        if (p[j] == 0) continue;
        const int64_t rj = g.row0 + j * g.stride;
        const S* v = qkv + rj * ld + 2 * E + h * D;
        S* dv = dqkv + rj * ld + 2 * E + h * D;
        S acc = 0;
        for (int d = 0; d < D; ++d) {
          acc += dy[d] * v[d];
          dv[d] += p[j] * dy[d];
        }
        dp[j] = acc;
        psum += p[j] * acc;
      }
      // ds_ij = P_ij (dP_ij - Σ P dP); dq_i += scale ds k_j; dk_j += scale ds q_i
      const S* q = qkv + ri * ld + h * D;
      S* dq = dqkv + ri * ld + h * D;
      for (int j = 0; j < L; ++j) {
        if (p[j] == 0) continue;
        const S ds = p[j] * (dp[j] - psum);
        if (dbias) dbias[(static_cast<int64_t>(i) * L + j) * H + h] += ds;
        const int64_t rj = g.row0 + j * g.stride;
        const S* k = qkv + rj * ld + E + h * D;
        S* dk = dqkv + rj * ld + E + h * D;
        const S dss = ds * scale;
        for (int d = 0; d < D; ++d) {
          dq[d] += dss * k[d];
          dk[d] += dss * q[d];
        }
      }
    }
  }
}

template <class S>
void attention_forward(S* out, S* probs, const S* qkv, int E, int H, AttnGroup g, bool causal,
                       const uint8_t* key_visible, const S* bias) {
  switch (E / H) {
    case 16:
      return attention_forward_impl<S, 16>(out, probs, qkv, E, H, g, causal, key_visible, bias);
    case 32:
      return attention_forward_impl<S, 32>(out, probs, qkv, E, H, g, causal, key_visible, bias);
    default:
      return attention_forward_impl<S, 0>(out, probs, qkv, E, H, g, causal, key_visible, bias);
  }
}

template <class S>
void attention_decode(S* out, S* probs, const S* q, const S* kt, int64_t ldk, const S* v,
                      int64_t ld, int L, int D, S scale, S* scores) {
  switch (D) {
    case 16:
      return attention_decode_impl<S, 16>(out, probs, q, kt, ldk, v, ld, L, D, scale, scores);
    case 32:
      return attention_decode_impl<S, 32>(out, probs, q, kt, ldk, v, ld, L, D, scale, scores);
    default:
      return attention_decode_impl<S, 0>(out, probs, q, kt, ldk, v, ld, L, D, scale, scores);
  }
}

template <class S>
void attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv, int E,
                        int H, AttnGroup g, S* dp) {
  switch (E / H) {
    case 16:
      return attention_backward_impl<S, 16>(dqkv, dbias, dout, probs, qkv, E, H, g, dp);
    case 32:
      return attention_backward_impl<S, 32>(dqkv, dbias, dout, probs, qkv, E, H, g, dp);
    default:
      return attention_backward_impl<S, 0>(dqkv, dbias, dout, probs, qkv, E, H, g, dp);
  }
}

// This copy's kernels, for the dispatcher in layers.cpp.
template <class S>
nn::LayerKernels<S> layer_kernels() {
  return {&linear_forward_rows<S>,
          &linear_forward_p_rows<S>,
          &linear_backward_din_rows<S>,
          &linear_backward_dw_rows<S>,
          &layernorm_forward_rows<S>,
          &layernorm_backward_din_rows<S>,
          &layernorm_backward_dw_cols<S>,
          &gelu_forward<S>,
          &gelu_backward<S>,
          &silu_forward<S>,
          &silu_backward<S>,
          &rope_forward<S>,
          &rope_backward<S>,
          &attention_forward<S>,
          &attention_backward<S>,
          &attention_decode<S>};
}
template nn::LayerKernels<float> layer_kernels<float>();
template nn::LayerKernels<double> layer_kernels<double>();

}  // namespace POSLAB_NN_NS
