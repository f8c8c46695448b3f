// The KV lab's trained source as the JSON `poslab-cli kv --preset 'kv?weights=trained&...'`
// prints and the panel's numbers equal (issue 39): per method the bits of every predicted
// byte, their mean and extra over the reference, the per-block key, value and hidden-state
// differences (stitch, rag) and the loss at L, 2L, 4L, 8L (stream).
#pragma once
#include "core/kv/kv_trained.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::io {

Json kv_trained_json(const KvTrainedResult& r);

}  // namespace poslab::io
