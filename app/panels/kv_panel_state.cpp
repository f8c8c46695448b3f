// Which stepped run each action of the KV lab starts, and the part of its settings that
// defines an experiment (kv_panel_state.hpp).
#include "app/panels/kv_panel_state.hpp"

#include <utility>

namespace poslab::app {

// A job's run of `op` on the shown session `base` (KvSessionRun: a step per piece of work).
std::unique_ptr<KvSessionRun> kv_op_run(KvOp op, const KvLabSettings& s, const KvSessionPtr& base) {
  if (op == KvOp::run || !base) return std::make_unique<KvSessionRun>(s);
  if (op == KvOp::restart) return std::make_unique<KvSessionRun>(s, false);
  KvSession ses = *base;
  ses.settings.method = s.method;
  const int steps = op == KvOp::more ? s.steps : op == KvOp::stitch ? 0 : 1;
  return std::make_unique<KvSessionRun>(std::move(ses), steps, op == KvOp::append);
}

// The part of the settings that defines the experiment (not which method or layer is viewed).
KvLabSettings kv_experiment(const KvLabSettings& s) {
  KvLabSettings k = s;
  k.method = KvLabSettings{}.method;
  k.view_layer = k.view_head = k.view_pair = 0;
  return k;
}

}  // namespace poslab::app
