// The attention kernel built with AVX2+FMA (CMake adds -mavx2 -mfma to this file only).
// Eigen is included under a renamed namespace so none of its inline functions or
// templates compiled here can be merged by the linker with the plain builds elsewhere
// (Eigen's code and alignment assumptions differ between the two instruction sets).
#define Eigen poslab_eigen_avx2
#include <Eigen/Dense>
#undef Eigen

#define POSLAB_KERNEL_NS poslab::kernel_avx2
#define POSLAB_EIGEN poslab_eigen_avx2
#include "core/attention/attention_kernel_body.ipp"

namespace poslab::kernel_avx2 {

void run(const float* q, const float* k, int tokens, int head_dim, float scale, const float* bias,
         bool causal, float* scores, float* weights) {
  scores_softmax(q, k, tokens, head_dim, scale, bias, causal, scores, weights);
}

void run_project(const float* x, const float* w, int tokens, int dim, int head_dim, float* out) {
  project(x, w, tokens, dim, head_dim, out);
}

}  // namespace poslab::kernel_avx2
