// The world model's backward pass (docs/world-model.md): the gradient of the masked loss
// through the heads, the final LayerNorm, the blocks in reverse and the encoders, added into
// grads; in stages (backward_step) like the forward pass (world_model.cpp).
#include <algorithm>

#include "core/common/errors.hpp"
#include "core/nn/attention.hpp"
#include "core/nn/blocks.hpp"
#include "core/nn/layers.hpp"
#include "core/nn/parallel.hpp"
#include "core/wm/wm_layers.hpp"
#include "core/wm/world_model.hpp"
#include "core/wm/world_model_impl.hpp"

namespace poslab::wm {

template <class S>
void WorldModelT<S>::backward() {
  backward_begin();
  while (backward_step()) {
  }
}

template <class S>
void WorldModelT<S>::backward_begin() {
  if (!impl_->have_forward) throw InputError("world model: backward() needs a forward() first");
  impl_->bstage = 0;
}

// Stage 0: sections 5' and 4'; stage 1 + 2i: block L-1-i's MLP half, 2 + 2i its attention
// half; the last (2L + 1): section 2'.
template <class S>
bool WorldModelT<S>::backward_step() {
  using namespace poslab::nn;  // the layers' backward kernels
  Impl& I = *impl_;
  if (I.bstage < 0) throw InputError("world model: backward_step() needs backward_begin() first");
  const int stage = I.bstage++;
  const WmOffsets& o = I.off;
  const WmConfig& c = config_;
  const int E = c.embed, H = c.heads, Ltot = c.layers, R = kRelRank;
  const int B = I.B, T = I.T;
  const int64_t M = I.M, Ms = I.Ms, Mp = I.Mp;
  const int nt = resolve_threads(I.threads);
  const S* P = this->params.data();
  S* G = this->grads.data();

  if (stage == 0) {
    // 5'. heads: relational low rank, state, action -> dzs, dza
    std::vector<S>&dU = I.dU, &dV = I.dV;
    dU.assign(Ms * kRelDim * R, S(0));
    dV.assign(Ms * kRelDim * R, S(0));
    for (int64_t k = 0; k < Ms; ++k) {
      const int64_t st = k / kShips;
      for (int j = 0; j < kShips; ++j) {
        const int64_t kj = st * kShips + j;
        const int64_t pr = (k * kShips + j) * kRelDim;
        for (int f = 0; f < kRelDim; ++f) {
          const S d = I.drel[pr + f];
          if (d == S(0)) continue;
          for (int r = 0; r < R; ++r) {
            dU[k * kRelDim * R + f * R + r] += d * I.V[kj * kRelDim * R + f * R + r];
            dV[kj * kRelDim * R + f * R + r] += d * I.U[k * kRelDim * R + f * R + r];
          }
        }
      }
    }
    std::vector<S>&dzs = I.dzs, &dza = I.dza;
    dzs.assign(Ms * E, S(0));
    dza.assign(Ms * E, S(0));
    linear_backward(dzs.data(), G + o.act_w, G + o.act_b, I.dlogits.data(), I.zs.data(),
                    P + o.act_w, Ms, E, kActionLogits, nt);
    std::vector<S>& dhead = I.dhead;  // through ŝ = base + scale ⊙ head
    dhead.resize(Ms * kTokenDim);
    for (int64_t i = 0; i < Ms * kTokenDim; ++i) dhead[i] = I.scale[i % kTokenDim] * I.dspred[i];
    linear_backward(dza.data(), G + o.st_w, G + o.st_b, dhead.data(), I.za.data(), P + o.st_w, Ms,
                    E, kTokenDim, nt);
    linear_backward(dza.data(), G + o.u_w, G + o.u_b, dU.data(), I.za.data(), P + o.u_w, Ms, E,
                    kRelDim * R, nt);
    linear_backward(dza.data(), G + o.v_w, G + o.v_b, dV.data(), I.za.data(), P + o.v_w, Ms, E,
                    kRelDim * R, nt);

    // 4'. final LayerNorm -> dx (M, E), the gradient of the residual stream
    std::vector<S>&dz = I.dz, &dx = I.dx;
    dz.resize(M * E);
    zero_fill(dx, M * E, nt);
    for (int64_t k = 0; k < Ms; ++k) {
      std::copy_n(&dzs[k * E], E, &dz[I.row_s(k) * E]);
      std::copy_n(&dza[k * E], E, &dz[I.row_a(k) * E]);
    }
    layernorm_backward(dx.data(), G + o.lnf_w, G + o.lnf_b, dz.data(), I.xs[Ltot].data(),
                       I.mf.data(), I.rf.data(), P + o.lnf_w, M, E, nt);
    return true;
  }

  // 3'. blocks in reverse, one half per stage; dx is the gradient of the block's output,
  // then of its input
  std::vector<S>& dx = I.dx;
  if (stage <= 2 * Ltot) {
    const int l = Ltot - 1 - (stage - 1) / 2;
    auto& Y = I.layers[l];
    const auto& ob = o.blocks[l];
    if (stage % 2 == 1) {  // MLP half: xo = xmid + fc2(gelu(fc1(ln2(xmid))))
      mlp_backward(dx.data(), G, I.mlp, Y.mlp, Y.xmid.data(), P, ob.mlp, M, E, 4 * E, nt);
      return true;
    }
    // attention half: xmid = x + proj(attn(qkv(ln1(x))))
    if (wm_is_temporal(l)) {
      const int Lq = 2 * T;
      const AttnRope<S> rope = c.position == WmPosition::rope
                                   ? AttnRope<S>{I.rope_cs.data(), I.rope_sn.data(), I.pos.data()}
                                   : AttnRope<S>{};
      attn_backward(
          dx.data(), G, I.attn, Y.attn, I.xs[l].data(), P, ob.attn, M, E, H, rope,
          [&](S* dqkv, const S* datt, const AttnActs<S>& a) {
            parallel_for(nt, int64_t{B} * kShips, [&](int64_t g0, int64_t g1) {
              for (int64_t g = g0; g < g1; ++g) {
                const int64_t b = g / kShips, n = g % kShips;
                const AttnGroup grp{b * T * 2 * kShips + n, kShips, Lq};
                attention_backward(dqkv, static_cast<S*>(nullptr), datt,
                                   a.probs.data() + g * H * Lq * Lq, a.qkv.data(), E, H, grp);
              }
            });
          },
          nt);
      return true;
    }
    attn_backward(
        dx.data(), G, I.attn, Y.attn, I.xs[l].data(), P, ob.attn, M, E, H, AttnRope<S>{},
        [&](S* dqkv, const S* datt, const AttnActs<S>& a) {
          std::vector<S>& drb = I.drb;
          drb.assign(Mp * H, S(0));
          // the S and A groups of one step share a bias block: one thread handles both
          parallel_for(nt, int64_t{B} * T, [&](int64_t s0, int64_t s1) {
            for (int64_t st = s0; st < s1; ++st)
              for (int64_t g = 2 * st; g < 2 * st + 2; ++g) {
                const AttnGroup grp{g * kShips, 1, kShips};
                attention_backward(dqkv, drb.data() + st * kShips * kShips * H, datt,
                                   a.probs.data() + g * H * kShips * kShips, a.qkv.data(), E, H,
                                   grp);
              }
          });
          std::vector<S>&dh = I.dh, &dpre = I.dpre;
          dh.assign(Mp * kRelBiasHidden, S(0));
          dpre.assign(Mp * kRelBiasHidden, S(0));
          linear_backward(dh.data(), G + ob.rb2_w, G + ob.rb2_b, drb.data(), Y.rb_act.data(),
                          P + ob.rb2_w, Mp, kRelBiasHidden, H, nt);
          silu_backward(dpre.data(), dh.data(), Y.rb_pre.data(), Mp * kRelBiasHidden);
          linear_backward(static_cast<S*>(nullptr), G + ob.rb1_w, G + ob.rb1_b, dpre.data(),
                          I.rel.data(), P + ob.rb1_w, Mp, kRelDim, kRelBiasHidden, nt);
        },
        nt);
    return true;
  }

  // 2'. embeddings and encoders
  std::vector<S>&dsenc = I.dsenc, &daenc = I.daenc;
  dsenc.resize(Ms * E), daenc.resize(Ms * E);
  for (int64_t k = 0; k < Ms; ++k) {
    const int n = static_cast<int>(k % kShips);
    const int t = static_cast<int>((k / kShips) % T);
    const bool absolute = c.position == WmPosition::absolute;
    const S* ds = &dx[I.row_s(k) * E];
    const S* da = &dx[I.row_a(k) * E];
    std::copy_n(ds, E, &dsenc[k * E]);
    std::copy_n(da, E, &daenc[k * E]);
    add_token_embeddings_backward(ds, c, o, G, n, 0, &I.tokens[k * kTokenDim],
                                  absolute ? 2 * t : -1);
    add_token_embeddings_backward(da, c, o, G, n, 1, static_cast<const float*>(nullptr),
                                  absolute ? 2 * t + 1 : -1);
  }
  state_encoder_backward(I.senc, c, o, P, G, dsenc.data(), Ms, nt);
  action_encoder_backward(I.aenc, c, o, P, G, daenc.data(), I.actions.data(), Ms, nt);
  I.bstage = -1;
  return false;
}

template void WorldModelT<float>::backward();
template void WorldModelT<float>::backward_begin();
template bool WorldModelT<float>::backward_step();
template void WorldModelT<double>::backward();
template void WorldModelT<double>::backward_begin();
template bool WorldModelT<double>::backward_step();

}  // namespace poslab::wm
