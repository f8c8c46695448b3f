// Body of the attention kernel, compiled twice: once plainly (attention_kernel.cpp) and
// once with AVX2+FMA (attention_kernel_avx2.cpp). The includer defines POSLAB_KERNEL_NS (a
// namespace for this copy) and POSLAB_EIGEN (the Eigen namespace it included under).
//
// Rows are done in blocks of kBlockRows: one block's logits (kBlockRows x T floats, 512 KB
// at T = 1024) are produced by a matrix product and soft-maxed while still in cache,
// instead of writing the whole (T, T) matrix and reading it back.
#include <algorithm>
#include <limits>

namespace POSLAB_KERNEL_NS {

constexpr int kBlockRows = 128;

inline void scores_softmax(const float* q, const float* k, int tokens, int head_dim, float scale,
                           const float* bias, bool causal, float* scores, float* weights) {
  using Mat = POSLAB_EIGEN::Matrix<float, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::Dynamic,
                                   POSLAB_EIGEN::RowMajor>;
  const POSLAB_EIGEN::Map<const Mat> Q(q, tokens, head_dim);  // (T, Dh)
  const POSLAB_EIGEN::Map<const Mat> K(k, tokens, head_dim);  // (T, Dh)
  POSLAB_EIGEN::Map<Mat> S(scores, tokens, tokens);           // (T, T)
  POSLAB_EIGEN::Map<Mat> W(weights, tokens, tokens);          // (T, T)
  const Mat q_scaled = scale * Q;  // scale the (T, Dh) side, not the (T, T) result
  // One row's exponentials, in Eigen's own aligned storage: the vectorised exp and sum then
  // start at element 0 whatever the addresses of S and W. Over an unaligned row Eigen peels
  // the first elements off one by one (scalar exp, another summation order), so the same
  // state gave weights differing in the last bits from one run to the next, as the heap
  // placed the buffers (issue 24: flags and their own printed preset disagreed by 2e-7).
  POSLAB_EIGEN::Matrix<float, 1, POSLAB_EIGEN::Dynamic> e(tokens);  // (T)
  const float inf = std::numeric_limits<float>::infinity();
  for (int b0 = 0; b0 < tokens; b0 += kBlockRows) {
    const int rows = std::min(kBlockRows, tokens - b0);
    // Causal: keys past the block's last query are never visible; skip their columns.
    const int cols = causal ? b0 + rows : tokens;
    S.block(b0, 0, rows, cols).noalias() =
        q_scaled.middleRows(b0, rows) * K.topRows(cols).transpose();
    if (bias)
      S.block(b0, 0, rows, cols) +=
          POSLAB_EIGEN::Map<const Mat>(bias, tokens, tokens).block(b0, 0, rows, cols);
    for (int i = b0; i < b0 + rows; ++i) {
      const int visible = causal ? i + 1 : tokens;
      if (visible < tokens) {
        S.row(i).tail(tokens - visible).setConstant(-inf);
        W.row(i).tail(tokens - visible).setZero();
      }
      auto s = S.row(i).head(visible);
      auto w = W.row(i).head(visible);
      // A NaN among the visible logits (undefined position) makes exp, the sum and so the
      // whole row NaN: no weights are invented for it.
      const float top = s.maxCoeff();  // subtract the max so exp never overflows
      auto ev = e.head(visible);
      ev = (s.array() - top).exp().matrix();
      w = ev / ev.sum();  // a division per element: the same result in any vector width
    }
  }
}

// out (T, Dh) = x (T, D) * w (D, Dh): the per-head projections, in float like the scores.
inline void project(const float* x, const float* w, int tokens, int dim, int head_dim, float* out) {
  using Mat = POSLAB_EIGEN::Matrix<float, POSLAB_EIGEN::Dynamic, POSLAB_EIGEN::Dynamic,
                                   POSLAB_EIGEN::RowMajor>;
  POSLAB_EIGEN::Map<Mat>(out, tokens, head_dim).noalias() =
      POSLAB_EIGEN::Map<const Mat>(x, tokens, dim) * POSLAB_EIGEN::Map<const Mat>(w, dim, head_dim);
}

}  // namespace POSLAB_KERNEL_NS
