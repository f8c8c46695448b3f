// The shared transformer pieces of blocks.hpp: the MLP half and the cross-entropy, each over
// the kernels of layers.hpp, in the pass order both models had (so every number is as before).
#include "core/nn/blocks.hpp"

#include <algorithm>
#include <cmath>

#include "core/nn/layers.hpp"
#include "core/nn/parallel.hpp"

namespace poslab::nn {

template <class S>
void mlp_forward(S* xo, MlpActs<S>& a, const S* xmid, WeightsArg<S> W, const MlpOffsets& o,
                 int64_t M, int E, int F, S eps, int threads) {
  a.ln.resize(M * E), a.mean.resize(M), a.rstd.resize(M);
  a.fc.resize(M * F), a.act.resize(M * F);
  layernorm_forward(a.ln.data(), a.mean.data(), a.rstd.data(), xmid, W.P + o.ln_w, W.P + o.ln_b, M,
                    E, eps, threads);
  linear_forward(a.fc.data(), a.ln.data(), W, o.fc1_w, o.fc1_b, M, E, F, threads);
  parallel_for(threads, M, [&](int64_t r0, int64_t r1) {
    gelu_forward(a.act.data() + r0 * F, a.fc.data() + r0 * F, (r1 - r0) * F);
  });
  linear_forward(xo, a.act.data(), W, o.fc2_w, o.fc2_b, M, F, E, threads);
  add_into(xo, xmid, M * E, threads);  // the residual
}

template <class S>
void mlp_backward(S* dx, S* G, MlpScratch<S>& s, const MlpActs<S>& a, const S* xmid, const S* P,
                  const MlpOffsets& o, int64_t M, int E, int F, int threads) {
  zero_fill(s.dact, M * F, threads);
  zero_fill(s.dfc, M * F, threads);
  zero_fill(s.dln, M * E, threads);
  linear_backward(s.dact.data(), G + o.fc2_w, G + o.fc2_b, dx, a.act.data(), P + o.fc2_w, M, F, E,
                  threads);
  parallel_for(threads, M, [&](int64_t r0, int64_t r1) {
    gelu_backward(s.dfc.data() + r0 * F, s.dact.data() + r0 * F, a.fc.data() + r0 * F,
                  (r1 - r0) * F);
  });
  linear_backward(s.dln.data(), G + o.fc1_w, G + o.fc1_b, s.dfc.data(), a.ln.data(), P + o.fc1_w, M,
                  E, F, threads);
  layernorm_backward(dx, G + o.ln_w, G + o.ln_b, s.dln.data(), xmid, a.mean.data(), a.rstd.data(),
                     P + o.ln_w, M, E, threads);
}

template <class S>
void cross_entropy_forward(S* losses, S* dlogits, const S* logits, const uint8_t* targets,
                           int64_t M, int V, S scale, int threads) {
  parallel_for(threads, M, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const S* z = logits + r * V;
      S* dz = dlogits + r * V;
      S mx = z[0];
      for (int v = 1; v < V; ++v) mx = std::max(mx, z[v]);
      S sum = 0;
      for (int v = 0; v < V; ++v) sum += (dz[v] = std::exp(z[v] - mx));
      const S lse = mx + std::log(sum);
      losses[r] = lse - z[targets[r]];
      for (int v = 0; v < V; ++v) dz[v] *= scale / sum;
      dz[targets[r]] -= scale;
    }
  });
}

#define POSLAB_NN_BLOCKS_INSTANTIATE(S)                                                         \
  template void mlp_forward<S>(S*, MlpActs<S>&, const S*, const Weights<S>&, const MlpOffsets&, \
                               int64_t, int, int, S, int);                                      \
  template void mlp_backward<S>(S*, S*, MlpScratch<S>&, const MlpActs<S>&, const S*, const S*,  \
                                const MlpOffsets&, int64_t, int, int, int);                     \
  template void cross_entropy_forward<S>(S*, S*, const S*, const uint8_t*, int64_t, int, S, int);

POSLAB_NN_BLOCKS_INSTANTIATE(float)
POSLAB_NN_BLOCKS_INSTANTIATE(double)

}  // namespace poslab::nn
