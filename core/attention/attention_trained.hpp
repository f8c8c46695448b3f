// The attention lab's "trained" source (issue 27): the real attention probabilities of one
// of the length lab's shipped byte-level language models (core/lm) on a text, per layer and
// head or averaged over the heads, past the model's training length L, with and without a
// RoPE scaling. Tokens are BYTES here (the models read UTF-8 bytes). The model's weights and
// the held-out text are loaded by io and handed in; core reads no file.
//
// Shapes: n bytes, H heads of the model; every map is (n, n), row = query, column = key,
// causal (0 above the diagonal), each row summing to 1.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/lm/length_lab.hpp"

namespace poslab {

enum class AttentionWeights { random, trained };
const std::vector<std::string>& attention_weights_names();  // random, trained

// What io hands in for the trained source: the chosen shipped model and the held-out
// (validation) text of its split.
struct AttentionTrainedData {
  lm::LengthLabModel model;
  std::vector<uint8_t> valid;  // bytes
};

// One attention map of the chosen layer and head (or the mean over heads).
struct AttentionTrainedMap {
  lm::LmScaling scaling;             // what the model ran with
  RowMatrixF weights;                // (n, n) causal probabilities
  std::vector<double> row_entropy;   // (n) nats of each row
  std::vector<double> row_max;       // (n) largest weight of each row
  std::vector<double> row_distance;  // (n) how far back row t looks: sum_s P[t, s] (t - s)
  double entropy_before_L = 0;       // mean row entropy of queries t < L
  double entropy_after_L = 0;        // mean row entropy of queries t >= L (0 when n <= L)
  double distance_before_L = 0;      // mean row_distance of queries t < L
  double distance_after_L = 0;       // mean row_distance of queries t >= L (0 when n <= L)
};

// The RoPE decay demo on the trained model: per head of the chosen layer, against the
// distance d = t - s (0 .. n-1), averaged over the queries t >= d of `windows` held-out
// passages of n bytes:
//   mean_weight[h][d] = mean P[t, t-d]
//   mean_logit[h][d]  = mean (ln P[t, t-d] - mean_{s<=t} ln P[t, s]): the logit q.k/sqrt(D) +
//                       bias up to a per-row constant (softmax drops it), centred per row
// and RoFormer's bound for the model's head dim: q = k = ones, score / sqrt(D).
struct AttentionTrainedDecay {
  int windows = 0;
  std::vector<double> distances;                 // (n)
  std::vector<std::vector<double>> mean_weight;  // H x (n)
  std::vector<std::vector<double>> mean_logit;   // H x (n)
  std::vector<double> bound;                     // (n) RoFormer's ones curve (RoPE models)
  long long floored = 0;  // weights below 1e-30 read as 1e-30 in the logit (float underflow)
  // mean_logit summarised per head: the mean over distances 1..8 (near), L/4..L-1 (inside
  // the trained range, far) and L..2L-1 (past L; NaN when n <= L).
  std::vector<double> near, inside, past;  // H each
  // What every head shows (when n > L): near > inside (the logit falls within L) and past
  // above inside (rises again past L) or not; mixed when the heads differ or n <= L.
  enum class Trend { rises_past_L, stays_low_past_L, mixed } trend = Trend::mixed;
};

struct AttentionTrained {
  lm::LengthModelId model = lm::LengthModelId::rope;
  int context = 0;                  // L of the model
  int layers = 0, heads = 0;        // of the model
  int head_dim = 0;                 // D of the model
  int layer = 0;                    // shown block (the setting clamped to the model)
  int head = 0;                     // shown head, -1 = the mean over heads
  bool heldout = false;             // bytes are held-out text (else the lab's own text)
  std::vector<uint8_t> bytes;       // (n) the text attended
  std::vector<std::string> tokens;  // (n) a printable label per byte
  AttentionTrainedMap plain;        // with the model's own scaling (none, or its tuning's)
  bool has_scaled = false;          // RoPE models, when `scaling` differs from that
  AttentionTrainedMap scaled;       // with the lab's scaling
  bool has_decay = false;
  AttentionTrainedDecay decay;
};

// A printable label of each byte: the character for printable ASCII, "\n", "\t", "␠" for a
// space, and the hex value ("x e4") for other bytes (a UTF-8 character spans several).
std::vector<std::string> attention_byte_tokens(const std::vector<uint8_t>& bytes);
// Held-out passage i of n bytes (length_passage: wrapped round the text's end).
std::vector<uint8_t> attention_trained_passage(const std::vector<uint8_t>& valid, int i, int n);

// Map statistics (entropy, maximum, means before and after L) of a (n, n) map.
AttentionTrainedMap attention_trained_map(RowMatrixF weights, const lm::LmScaling& s, int L);

}  // namespace poslab
