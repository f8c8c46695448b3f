// The hot loop of the attention lab: logits = scale * Q K^T + bias, optional causal mask,
// row softmax, for one head, in float32 with Eigen matrix products. Raw pointers only, so
// the AVX2 build of the same code (attention_kernel_avx2.cpp) shares no types with the rest.
//
// Shapes: T = tokens, Dh = head dim. q, k are (T, Dh); bias, scores, weights are (T, T);
// all row-major, densely packed, no alignment required.
#pragma once

namespace poslab {

// scores[i][j] = scale * <q_i, k_j> + bias[i][j] (bias may be nullptr); with causal,
// scores[i][j] = -inf for j > i. weights = softmax of each row over its visible keys
// (masked entries exactly 0). A row whose visible scores hold a NaN (an undefined
// position) gets NaN weights: the model has no answer there, and we do not invent one.
void attention_scores_softmax(const float* q, const float* k, int tokens, int head_dim, float scale,
                              const float* bias, bool causal, float* scores, float* weights);

// out (T, Dh) = x (T, D) * w (D, Dh), all row-major float: the per-head q / k projections
// (a NaN row of x, an undefined position, stays a NaN row).
void attention_project(const float* x, const float* w, int tokens, int dim, int head_dim,
                       float* out);

// Which build of the kernel runs on this machine: "avx2+fma" or "generic".
const char* attention_kernel_isa();

}  // namespace poslab
