// The attention kernel's plain build and the choice between it and the AVX2+FMA build at
// run time (so one binary runs everywhere and is fast where the CPU allows).
#include "core/attention/attention_kernel.hpp"

#include <Eigen/Dense>

#define POSLAB_KERNEL_NS poslab::kernel_generic
#define POSLAB_EIGEN Eigen
#include "core/attention/attention_kernel_body.ipp"

#ifdef POSLAB_ATTENTION_AVX2
namespace poslab::kernel_avx2 {
void run(const float* q, const float* k, int tokens, int head_dim, float scale, const float* bias,
         bool causal, float* scores, float* weights);
void run_project(const float* x, const float* w, int tokens, int dim, int head_dim, float* out);
}  // namespace poslab::kernel_avx2
#endif

namespace poslab {
namespace {

bool cpu_has_avx2() {
#ifdef POSLAB_ATTENTION_AVX2
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

}  // namespace

void attention_scores_softmax(const float* q, const float* k, int tokens, int head_dim, float scale,
                              const float* bias, bool causal, float* scores, float* weights) {
#ifdef POSLAB_ATTENTION_AVX2
  if (cpu_has_avx2())
    return kernel_avx2::run(q, k, tokens, head_dim, scale, bias, causal, scores, weights);
#endif
  kernel_generic::scores_softmax(q, k, tokens, head_dim, scale, bias, causal, scores, weights);
}

void attention_project(const float* x, const float* w, int tokens, int dim, int head_dim,
                       float* out) {
#ifdef POSLAB_ATTENTION_AVX2
  if (cpu_has_avx2()) return kernel_avx2::run_project(x, w, tokens, dim, head_dim, out);
#endif
  kernel_generic::project(x, w, tokens, dim, head_dim, out);
}

const char* attention_kernel_isa() {
  return cpu_has_avx2() ? "avx2+fma" : "generic";
}

}  // namespace poslab
