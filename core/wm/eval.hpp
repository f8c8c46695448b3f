// Evaluating a world model on held-out episodes: teacher-forced one-step errors and action
// accuracy, and dreams of K steps from real states (closed loop: the recorded actions are
// fed in; open loop: the model's action head flies), scored per step against the real
// simulator driven by the same actions, next to the copy-last and constant-velocity
// baselines (core/wm/baselines.hpp). A dream here is the one dream session
// (core/wm/dream_session.hpp) with its views off, started from a recorded episode; past the
// context it uses the decoder's window modes (core/wm/wm_decode.hpp WmOverflow).
//   K = dreamt steps, N = 8 slots, states (N, 15) as in spec section 5
#pragma once
#include <cstdint>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/param_range.hpp"
#include "core/wm/baselines.hpp"
#include "core/wm/data.hpp"
#include "core/wm/dream_session.hpp"
#include "core/wm/wm_decode.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

// Past the context a dream uses the decoder's window modes (WmOverflow, wm_decode.hpp):
// slide, recompute, patch; wm_overflow_name / wm_overflow_from_name name them. DreamLoop is
// the session's (dream_session.hpp).

struct DreamParams {
  int steps = 50;                      // K: dreamt steps, [1, 100000]
  int history = 8;                     // real steps before the start the model sees, [0, 4096]
  DreamLoop loop = DreamLoop::closed;  // where the actions come from
  double temperature = 0.0;  // open loop: action sampling temperature, 0 = argmax, [0, 10]
  uint64_t seed = 0;         // open loop: action sampling stream
  WmOverflow window = WmOverflow::slide;  // past the context

  static constexpr ParamRange steps_range{1, 100000};
  static constexpr ParamRange history_range{0, 4096};
  static constexpr ParamRange temperature_range{0, 10};
};
void dream_validate(const DreamParams& p);

// The state fed back into the model after a prediction: binaries rounded, unit pairs
// renormalised, bounded values clamped, team copied, a dead ship frozen at its previous
// token (alive 0, health 0), absent slots zero. pred, prev and out are (N, 15).
void wm_clean_state(const float* pred, const float* prev, float* out);

struct DreamResult {
  int start = 0;                 // episode row of the real state the dream starts from
  int steps = 0;                 // dreamt steps scored (< K if the real episode ended)
  std::vector<float> dreamt;     // (steps + 1, N, 15); row 0 is the real start state
  std::vector<float> real;       // (steps + 1, N, 15) real simulator states
  std::vector<uint8_t> actions;  // (steps, N, 3) actions taken at rows start .. start+steps-1
  ErrorAccumulator model{1}, copy_last{1}, const_velocity{1};  // per-step errors, horizons 1..K
};

// One dream from row `start` of a real episode (whose seed replays it in the simulator): the
// real rows start - history .. start - 1 go into the cache teacher-forced, then each step
// feeds the (cleaned) dreamt state back. A thin wrapper: the session of
// dream_session_config_of_record (views off, reality as recorded, closed loop ending with
// the record) on the KV-cache decoder, its frames copied out. Throws InputError if the
// episode cannot be replayed or start is out of range.
DreamResult wm_dream(const WorldModel& model, const bnb::EpisodeRecord& episode, int start,
                     const DreamParams& p);

// Replays the recorded actions of `episode` up to row `row` in the simulator (the episode
// seed and team sizes recreate its start); checks the tokens on the way.
bnb::SimState wm_replay_to(const bnb::EpisodeRecord& episode, int row);

// Teacher-forced scores on fixed windows.
struct TeacherForcedResult {
  WmLoss loss;
  ErrorAccumulator model{1}, copy_last{1}, const_velocity{1};  // one-step errors (horizon 1)
  double action_accuracy[3] = {0, 0, 0};                       // argmax = executed action, per head
  double expert_accuracy[3] = {0, 0, 0};  // argmax = the expert's action, per head
  int64_t action_count = 0;               // alive (ship, step) terms
};
TeacherForcedResult wm_teacher_forced(WorldModel& model,
                                      const std::vector<bnb::EpisodeRecord>& episodes,
                                      const std::vector<WmWindow>& windows, int steps, int batch);

// Dream starts on validation episodes: rows history, history + stride, ... that leave K
// real steps after them (or the first one of a shorter episode), at most max_dreams.
struct DreamStart {
  int episode = 0;
  int start = 0;
};
std::vector<DreamStart> wm_dream_starts(const std::vector<bnb::EpisodeRecord>& episodes,
                                        const std::vector<int>& val, const DreamParams& p,
                                        int stride, int max_dreams);

// Many dreams, errors merged per horizon.
struct DreamSummary {
  int dreams = 0;
  ErrorAccumulator model{1}, copy_last{1}, const_velocity{1};
};
DreamSummary wm_dream_many(const WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                           const std::vector<DreamStart>& starts, const DreamParams& p);

}  // namespace poslab::wm
