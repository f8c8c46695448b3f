// Body of the attention kernel, compiled twice: once plainly (attention_kernel.cpp) and
// once with AVX2+FMA (attention_kernel_avx2.cpp). The includer defines POSLAB_KERNEL_NS (a
// namespace for this copy) and POSLAB_EIGEN (the Eigen namespace it included under).
#include <limits>

namespace POSLAB_KERNEL_NS {

inline void scores_softmax(const float* q, const float* k, int tokens, int head_dim, float scale,
                           const float* bias, bool causal, float* scores, float* weights) {
  using Mat = POSLAB_EIGEN::Matrix<float, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::RowMajor>;
  const POSLAB_EIGEN::Map<const Mat> Q(q, tokens, head_dim);  // (T, Dh)
  const POSLAB_EIGEN::Map<const Mat> K(k, tokens, head_dim);  // (T, Dh)
  POSLAB_EIGEN::Map<Mat> S(scores, tokens, tokens);           // (T, T)
  POSLAB_EIGEN::Map<Mat> W(weights, tokens, tokens);          // (T, T)
  const Mat q_scaled = scale * Q;  // scale the (T, Dh) side, not the (T, T) result
  S.noalias() = q_scaled * K.transpose();
  if (bias) S += POSLAB_EIGEN::Map<const Mat>(bias, tokens, tokens);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 0; i < tokens; ++i) {
    const int visible = causal ? i + 1 : tokens;
    if (visible < tokens) {
      S.row(i).tail(tokens - visible).setConstant(-inf);
      W.row(i).tail(tokens - visible).setZero();
    }
    auto s = S.row(i).head(visible);
    auto w = W.row(i).head(visible);
    if (s.hasNaN()) {
      w.setConstant(nan);
      continue;
    }
    const float top = s.maxCoeff();  // subtract the max so exp never overflows
    w = (s.array() - top).exp().matrix();
    w /= w.sum();
  }
}

}  // namespace POSLAB_KERNEL_NS
