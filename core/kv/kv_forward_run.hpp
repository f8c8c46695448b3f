// kv_forward_full in bounded pieces (kv_model.hpp), for a caller that steps it: the KV lab's
// jobs, whose steps the browser runs inside its frames (KvSessionRun). Defined in
// kv_model.cpp beside the forward it is.
#pragma once
#include <utility>
#include <vector>

#include "core/kv/kv_cache.hpp"
#include "core/kv/kv_model.hpp"

namespace poslab {

// kv_forward_full in bounded pieces, for a caller that steps it (the KV lab's jobs: the
// browser's frames run a few pieces each): the embedding; per layer Q, K and V, each head's
// attention, the output projection, the MLP in column blocks; the logits in column blocks.
// kv_forward_full is a loop over it, so both give the same numbers. Holds the model by
// reference: keep it alive and in place while it runs.
class KvForwardRun {
 public:
  KvForwardRun(const KvModel& m, std::vector<int> tokens, std::vector<double> positions,
               bool with_cache, bool float32_cache = true);
  bool done() const { return done_; }
  void step();
  const std::vector<int>& tokens() const { return tokens_; }
  const KvTrace& trace() const { return tr_; }
  const KvCache& cache() const { return cache_; }  // with_cache: the K/V it computed
  KvTrace take_trace() { return std::move(tr_); }
  KvCache take_cache() { return std::move(cache_); }

 private:
  void layer_piece();
  const KvModel& m_;
  std::vector<int> tokens_;
  std::vector<double> positions_;
  bool with_cache_;
  KvTrace tr_;
  KvCache cache_;
  RowMatrix x_, h_, k_raw_, q_, k_, v_, o_, att_last_, xmid_, up_;
  int layer_ = -1;  // -1: the embedding is next; layers: the logits
  int piece_ = 0;   // the next piece of the layer (or of the logits)
  bool done_ = false;
};

}  // namespace poslab
