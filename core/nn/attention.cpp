// The attention layer of the model kit (attention.hpp): the attention half of a block over
// the layers of layers.hpp, and the causal attention of one window as per-head products. The
// full T x T products are computed and the part above the diagonal is discarded: twice the
// arithmetic of a triangular kernel, but in GEMM form several times faster than the pairwise
// loop.
#include "core/nn/attention.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/nn/layers.hpp"
#include "core/nn/parallel.hpp"

namespace poslab::nn {

namespace {

// Head h's q (or k at part 1) as a contiguous (T, D) block: dst[t*D + d] = qkv[t, part*E + h*D +
// d].
template <class S>
void causal_attn_gather(S* dst, const S* qkv, int E, int T, int D, int part, int h) {
  const int64_t ld = 3 * static_cast<int64_t>(E);
  for (int t = 0; t < T; ++t) std::copy_n(qkv + t * ld + part * E + h * D, D, dst + t * D);
}

// Head h's v transposed, (D, T): vt[d*T + t] = v_t[d].
template <class S>
void causal_attn_gather_vt(S* vt, const S* qkv, int E, int T, int D, int h) {
  const int64_t ld = 3 * static_cast<int64_t>(E);
  for (int t = 0; t < T; ++t) {
    const S* v = qkv + t * ld + 2 * E + h * D;
    for (int d = 0; d < D; ++d) vt[static_cast<int64_t>(d) * T + t] = v[d];
  }
}

}  // namespace

template <class S>
void causal_attention_forward(S* out, S* probs, const S* qkv, int E, int H, int T, const S* bias) {
  const int D = E / H;
  const S scale = S(1) / std::sqrt(static_cast<S>(D));
  const int64_t TT = static_cast<int64_t>(T) * T;
  std::vector<S> q(static_cast<size_t>(T) * D), k(q.size()), vt(q.size()), o(q.size());
  // 1. raw scores q·kᵀ of every head into probs
  for (int h = 0; h < H; ++h) {
    causal_attn_gather(q.data(), qkv, E, T, D, 0, h);
    causal_attn_gather(k.data(), qkv, E, T, D, 1, h);
    linear_forward(probs + h * TT, q.data(), k.data(), static_cast<const S*>(nullptr), T, D, T);
  }
  // 2. scale and bias, reading the (T, T, H) bias once in order (per head it would be read
  //    with a stride of H: a quarter of an 8L evaluation went to those loads)
  for (int i = 0; i < T; ++i) {
    const S* b = bias ? bias + static_cast<int64_t>(i) * T * H : nullptr;
    for (int h = 0; h < H; ++h) {
      S* p = probs + h * TT + static_cast<int64_t>(i) * T;
      if (b)
        for (int j = 0; j <= i; ++j) p[j] = p[j] * scale + b[static_cast<int64_t>(j) * H + h];
      else
        for (int j = 0; j <= i; ++j) p[j] *= scale;
    }
  }
  // 3. softmax over the keys s <= t of each row, 4. out = P·v
  for (int h = 0; h < H; ++h) {
    S* P = probs + h * TT;
    for (int i = 0; i < T; ++i) {
      S* p = P + static_cast<int64_t>(i) * T;
      Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>> row(p, i + 1);
      row = (row - row.maxCoeff()).exp();  // Eigen's vectorised exp
      // Scores far below the row's maximum (ALiBi's bias at long distances) give subnormal
      // floats, whose arithmetic is many times slower on x86 (an 8L ALiBi evaluation took 3x
      // RoPE's). They are below the smallest normal number, so they count as 0.
      row = (row < std::numeric_limits<S>::min()).select(S(0), row);
      row *= S(1) / row.sum();
      std::fill(p + i + 1, p + T, S(0));
    }
    causal_attn_gather_vt(vt.data(), qkv, E, T, D, h);
    linear_forward(o.data(), P, vt.data(), static_cast<const S*>(nullptr), T, T, D);  // P·v
    for (int t = 0; t < T; ++t)
      std::copy_n(o.data() + t * D, D, out + static_cast<int64_t>(t) * E + h * D);
  }
}

template <class S>
void causal_attention_backward(S* dqkv, S* dbias, const S* dout, const S* probs, const S* qkv,
                               int E, int H, int T) {
  const int D = E / H;
  const S scale = S(1) / std::sqrt(static_cast<S>(D));
  const int64_t TT = static_cast<int64_t>(T) * T;
  const int64_t ld = 3 * static_cast<int64_t>(E);
  std::vector<S> q(static_cast<size_t>(T) * D), k(q.size()), vt(q.size()), dy(q.size());
  std::vector<S> dq(q.size()), dk(q.size()), dvt(q.size()), ds(static_cast<size_t>(TT));
  for (int h = 0; h < H; ++h) {
    causal_attn_gather(q.data(), qkv, E, T, D, 0, h);
    causal_attn_gather(k.data(), qkv, E, T, D, 1, h);
    causal_attn_gather_vt(vt.data(), qkv, E, T, D, h);
    for (int t = 0; t < T; ++t)
      std::copy_n(dout + static_cast<int64_t>(t) * E + h * D, D, dy.data() + t * D);
    const S* P = probs + h * TT;
    // out = P·v: dP (in ds) = dy·vᵀ, dvᵀ = dyᵀ·P
    std::fill(ds.begin(), ds.end(), S(0));
    std::fill(dvt.begin(), dvt.end(), S(0));
    linear_backward(ds.data(), dvt.data(), static_cast<S*>(nullptr), dy.data(), P, vt.data(), T, T,
                    D);
    // softmax: dS_ij = P_ij (dP_ij - Σ_j P_ij dP_ij), zero above the diagonal (P = 0 there)
    for (int i = 0; i < T; ++i) {
      const S* p = P + static_cast<int64_t>(i) * T;
      S* g = ds.data() + static_cast<int64_t>(i) * T;
      S psum = 0;
      for (int j = 0; j <= i; ++j) psum += p[j] * g[j];
      for (int j = 0; j <= i; ++j) {
        const S d = p[j] * (g[j] - psum);
        if (dbias) dbias[(static_cast<int64_t>(i) * T + j) * H + h] += d;
        g[j] = d * scale;
      }
      std::fill(g + i + 1, g + T, S(0));
    }
    // scores = scale q·kᵀ: dq = dS·k, dk = dSᵀ·q (scale folded into dS above)
    std::fill(dq.begin(), dq.end(), S(0));
    std::fill(dk.begin(), dk.end(), S(0));
    linear_backward(dq.data(), dk.data(), static_cast<S*>(nullptr), ds.data(), q.data(), k.data(),
                    T, D, T);
    for (int t = 0; t < T; ++t) {
      S* row = dqkv + t * ld + h * D;
      for (int d = 0; d < D; ++d) {
        row[d] += dq[static_cast<size_t>(t) * D + d];
        row[E + d] += dk[static_cast<size_t>(t) * D + d];
        row[2 * E + d] += dvt[static_cast<size_t>(d) * T + t];
      }
    }
  }
}

template <class S>
void attn_forward(S* xmid, AttnActs<S>& a, const S* x, const S* P, const AttnOffsets& o, int64_t M,
                  int E, int H, S eps, const AttnRope<S>& rope,
                  const std::type_identity_t<AttnCoreForward<S>>& core, int threads) {
  const int D = E / H;
  a.ln.resize(M * E), a.mean.resize(M), a.rstd.resize(M);
  a.qkv.resize(M * 3 * E), a.att.resize(M * E);
  layernorm_forward(a.ln.data(), a.mean.data(), a.rstd.data(), x, P + o.ln_w, P + o.ln_b, M, E, eps,
                    threads);
  linear_forward(a.qkv.data(), a.ln.data(), P + o.qkv_w, P + o.qkv_b, M, E, 3 * E, threads);
  if (rope.cs) {
    parallel_for(threads, M, [&](int64_t r0, int64_t r1) {
      // q at column 0, k at column E, each H heads of D
      rope_forward(a.qkv.data() + r0 * 3 * E, r1 - r0, 3 * E, 0, H, D, rope.cs, rope.sn,
                   rope.pos + r0);
      rope_forward(a.qkv.data() + r0 * 3 * E, r1 - r0, 3 * E, E, H, D, rope.cs, rope.sn,
                   rope.pos + r0);
    });
  }
  core(a);
  linear_forward(xmid, a.att.data(), P + o.proj_w, P + o.proj_b, M, E, E, threads);
  add_into(xmid, x, M * E, threads);  // the residual
}

template <class S>
void attn_backward(S* dx, S* G, AttnScratch<S>& s, const AttnActs<S>& a, const S* x, const S* P,
                   const AttnOffsets& o, int64_t M, int E, int H, const AttnRope<S>& rope,
                   const std::type_identity_t<AttnCoreBackward<S>>& core, int threads) {
  const int D = E / H;
  zero_fill(s.datt, M * E, threads);
  zero_fill(s.dqkv, M * 3 * E, threads);
  zero_fill(s.dln, M * E, threads);
  linear_backward(s.datt.data(), G + o.proj_w, G + o.proj_b, dx, a.att.data(), P + o.proj_w, M, E,
                  E, threads);
  core(s.dqkv.data(), s.datt.data(), a);
  if (rope.cs) {
    parallel_for(threads, M, [&](int64_t r0, int64_t r1) {
      rope_backward(s.dqkv.data() + r0 * 3 * E, r1 - r0, 3 * E, 0, H, D, rope.cs, rope.sn,
                    rope.pos + r0);
      rope_backward(s.dqkv.data() + r0 * 3 * E, r1 - r0, 3 * E, E, H, D, rope.cs, rope.sn,
                    rope.pos + r0);
    });
  }
  linear_backward(s.dln.data(), G + o.qkv_w, G + o.qkv_b, s.dqkv.data(), a.ln.data(), P + o.qkv_w,
                  M, E, 3 * E, threads);
  layernorm_backward(dx, G + o.ln_w, G + o.ln_b, s.dln.data(), x, a.mean.data(), a.rstd.data(),
                     P + o.ln_w, M, E, threads);
}

template void causal_attention_forward<float>(float*, float*, const float*, int, int, int,
                                              const float*);
template void causal_attention_forward<double>(double*, double*, const double*, int, int, int,
                                               const double*);
template void causal_attention_backward<float>(float*, float*, const float*, const float*,
                                               const float*, int, int, int);
template void causal_attention_backward<double>(double*, double*, const double*, const double*,
                                                const double*, int, int, int);

template void attn_forward<float>(float*, AttnActs<float>&, const float*, const float*,
                                  const AttnOffsets&, int64_t, int, int, float,
                                  const AttnRope<float>&, const AttnCoreForward<float>&, int);
template void attn_forward<double>(double*, AttnActs<double>&, const double*, const double*,
                                   const AttnOffsets&, int64_t, int, int, double,
                                   const AttnRope<double>&, const AttnCoreForward<double>&, int);
template void attn_backward<float>(float*, float*, AttnScratch<float>&, const AttnActs<float>&,
                                   const float*, const float*, const AttnOffsets&, int64_t, int,
                                   int, const AttnRope<float>&, const AttnCoreBackward<float>&,
                                   int);
template void attn_backward<double>(double*, double*, AttnScratch<double>&, const AttnActs<double>&,
                                    const double*, const double*, const AttnOffsets&, int64_t, int,
                                    int, const AttnRope<double>&, const AttnCoreBackward<double>&,
                                    int);

}  // namespace poslab::nn
