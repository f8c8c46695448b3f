// The one dream session: a start state of Boost and Broadside played two ways, by the
// exact simulator and by a world model's dream fed the same actions, as a timeline of real
// and dreamt frames with the per-step error against reality and the copy-last and
// constant-velocity baselines. The dream lab's panel steps it frame by frame with its views
// (attention, token strip) on; `poslab-cli wm dream` and `wm eval` (core/wm/eval.hpp's
// wm_dream) run the same session with the views off.
//   N = 8 slots, 15 = token values, C = the model's context in steps
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_policy.hpp"
#include "core/bnb/bnb_sim.hpp"
#include "core/common/param_range.hpp"
#include "core/wm/baselines.hpp"  // ErrorSummary: the one error record
#include "core/wm/wm_decode.hpp"  // WmOverflow: the window vocabulary past the context

namespace poslab::wm {

// Where a dream's actions come from: closed loop, the real ones (reality's policy, a
// recorded episode, the helm); open loop, the model's own action head.
enum class DreamLoop { closed, open };
const char* dream_loop_name(DreamLoop l);              // "closed" / "open"
DreamLoop dream_loop_from_name(const std::string& s);  // throws InputError

inline constexpr int kFrameValues = bnb::kSlots * bnb::kTokenDim;  // (8, 15) per step
using FrameTokens = std::array<float, kFrameValues>;               // slot k at [k * 15]

// How the temporal window behaves once the dream is longer than the context C.
//   rope        RoPE: the oldest step leaves the cache, the others keep their keys and
//               indices (scores depend only on index differences, so nothing is wrong).
//   recompute   learned absolute positions, exact: the window is re-encoded from scratch
//               with indices 0 .. 2C-1 every step after it is full.
//   naive       learned absolute positions, naive reuse (lesson 8): the oldest step leaves,
//               the kept keys are USED as 0 .. 2C-3 but still hold the position rows they
//               were STORED with; the new step gets 2C-2, 2C-1. Preset value also "reset".
//   patch       learned absolute positions, UniZero's correction: as naive, then every kept
//               key and value is patched by its block's projection of P[used] - P[stored]
//               (approximate in this architecture: wm_decode.hpp WmOverflow says why).
// A variant is the lab's choice of a model (its position encoding) and the decoder's window
// mode, read one way (dream_variant_overflow); below the lab the window has one vocabulary,
// the decoder's WmOverflow (slide / recompute / patch), next to the model's WmPosition.
enum class DreamVariant { rope, recompute, naive, patch };
const std::vector<std::string>& dream_variant_names();  // "rope", "recompute", "naive", "patch"
// Which shipped model dreams (when the lab names no checkpoint of its own): the tiny one
// (E 64, 4 blocks, context 32 steps: starts fastest) or the paper-size one (E 128, 6 blocks,
// context 96 steps, the design's size). Either comes with RoPE and with learned positions.
enum class DreamModelSize { tiny, paper };
const std::vector<std::string>& dream_model_size_names();  // "tiny", "paper"
// The decoder's window mode of a variant: rope and naive slide, recompute, patch.
WmOverflow dream_variant_overflow(DreamVariant v);

// ---- Error of a predicted frame against the real one ------------------------------------
// core/wm/baselines.hpp's one error record for one frame: means over the ships alive in the
// real frame (toroidal position px, velocity px/s, attitude deg, health and power points)
// and alive/dead agreement over present ships.
ErrorSummary step_error(std::span<const float> real, std::span<const float> pred);  // (8, 15)

// ---- KV-cache index bookkeeping (the token strip) ---------------------------------------
// Tokens S_0 A_0 S_1 A_1 ... of one ship. nominal = 2t (S_t) or 2t+1 (A_t). A cached token
// has the index its key was stored (encoded) with and the index the model uses it at now;
// they differ only in the `naive` window after the first slide.
struct StripToken {
  int step = 0;         // t
  bool action = false;  // false: S_t, true: A_t
  int nominal = 0;      // 2t or 2t + 1
  bool cached = false;  // in the KV cache now
  int stored = -1;      // index the cached key was computed with (-1 if not cached)
  int used = -1;        // index the model treats the key as now (-1 if not cached)
};
// The strip after `steps` whole steps (S and A of steps 0 .. steps-1) were appended to a
// cache of `context` steps in the given window mode by a model with the given positions
// (slide: RoPE keeps its indices, learned positions are the naive reuse). One entry per
// token, oldest first.
std::vector<StripToken> dream_token_strip(WmPosition position, WmOverflow window, int context,
                                          int steps);

// ---- The model seen by the lab ----------------------------------------------------------
// What the lab needs of a world model's incremental dream decoder; the adapter around
// core/wm's decoder and the test doubles implement it. Call order per step t:
// observe(S_t) -> [policy()] -> act(A_t) -> predicted S_{t+1}.
struct DreamAttention {
  int layers = 0;  // temporal (or spatial) blocks reported
  int heads = 0;   // H
  // temporal[l][h * 8 + n]: weights of ship n's newest token (A_t) over its cached keys,
  // oldest first (the token strip's cached tokens), in temporal block l.
  std::vector<std::vector<std::vector<float>>> temporal;
  // spatial[l][h]: 8 x 8 weights (query ship row, key ship column) of the A_t slot in
  // spatial block l; spatial_bias[l][h] the relational bias added to those scores before
  // the softmax. Masked (dead or absent) entries are NaN.
  std::vector<std::vector<std::array<float, 64>>> spatial, spatial_bias;
};

// What one dream step is fed: per ship either a given action (reality's, the helm's) or
// the model's own action head.
struct DreamChoice {
  bnb::JointAction given{};                   // actions of the ships with use_given
  std::array<bool, bnb::kSlots> use_given{};  // false: the model's action head picks
  double temperature = 1.0;                   // action head sampling temperature, 0 = argmax
};
struct DreamStep {
  bnb::JointAction actions{};  // A_t as fed to the model (given or chosen)
  FrameTokens next{};          // S_{t+1} as fed back (cleaned by core/wm/eval's rule)
};

// What a dream model is, as fields (the app words it in the user's language; describe()
// is the English line the CLI prints).
struct DreamModelInfo {
  std::string position;  // wm_position_name: "rope" or "absolute"
  int embed = 0, layers = 0, heads = 0, context = 0;
  std::string cache;              // wm_overflow_name of the KV-cache decoder, "" = none
  bool reset_recomputes = false;  // naive or patch without a KV-cache decoder: recomputes
};
// "rope, E 64, 4 blocks, 4 heads, context 32 steps, KV cache (slide)".
std::string describe_dream_model(const DreamModelInfo& info);

class DreamModel {
 public:
  virtual ~DreamModel() = default;
  virtual int context() const = 0;          // C, steps
  virtual WmPosition position() const = 0;  // the model's position encoding
  virtual WmOverflow window() const = 0;    // the window mode past the context
  // What the model is (empty fields when the model does not say).
  virtual DreamModelInfo info() const { return {}; }
  // One English line ("rope, E 64, 4 blocks, ..."), "" when info() says nothing.
  std::string describe() const {
    const DreamModelInfo i = info();
    return i.position.empty() ? std::string() : describe_dream_model(i);
  }
  // Starts over: the prompt is the real prefix, tokens (T+1, 8, 15) = S_0 .. S_T and
  // actions (T, 8, 3) = A_0 .. A_{T-1}; the next step() is step T. Open loop picks with
  // the one sampler, wm_decode.hpp's wm_pick_action, on the stream sample_seed.
  virtual void begin(std::span<const float> tokens, std::span<const uint8_t> actions,
                     uint64_t sample_seed) = 0;
  // Feeds A_t (chosen per `choice`) after the current S_t and returns S_{t+1}, which
  // becomes the current state.
  virtual DreamStep step(const DreamChoice& choice) = 0;
  // The cache as the token strip draws it (defaults to dream_token_strip's bookkeeping).
  virtual std::vector<StripToken> strip(int steps) const {
    return dream_token_strip(position(), window(), context(), steps);
  }
  // Attention of the last step() (empty when the model does not report it).
  virtual DreamAttention attention() const { return {}; }
  virtual std::unique_ptr<DreamModel> clone() const = 0;
};

// ---- The session: a timeline of real and dreamt frames ---------------------------------
struct DreamFrame {
  int step = 0;                     // agent step of the episode
  bnb::SimState real;               // the simulator at this step
  FrameTokens real_tokens{};        // its tokens
  FrameTokens dream_tokens{};       // the dream's tokens (= real before and at the start)
  bnb::JointAction real_action{};   // what reality did in the step that led here
  bnb::JointAction dream_action{};  // what the dream was fed in the step that led here
  ErrorSummary error;               // dream vs real at this step (horizon step - start)
  ErrorSummary copy_last;           // baseline errors at the same horizon
  ErrorSummary const_velocity;
  // The views (null and empty when config.views is false):
  std::shared_ptr<const DreamAttention> attention;  // of the step that dreamt this frame
  std::vector<StripToken> strip;  // cached tokens after dreaming this frame, oldest first
};

// The session's own settings (the lab's settings map onto them, dream_lab.hpp; wm_dream's
// DreamParams too, eval.hpp). Ranges are what the session accepts; the lab's sliders are
// narrower.
struct DreamSessionConfig {
  uint64_t seed = 7;           // episode seed (reset and behaviour streams)
  bnb::EpisodeConfig episode;  // team sizes, truncation
  bnb::PolicyKind policy = bnb::PolicyKind::noisy_expert;  // flies reality
  std::vector<bnb::JointAction> replay;                    // policy == replay: the recorded actions
  int from = 8;      // prompt steps before the dream, [0, 100000]
  int history = -1;  // prompt steps the model sees (the newest), -1 = all, [-1, 100000]
  int horizon = 96;  // dream steps at most, [1, 100000]
  DreamLoop loop = DreamLoop::closed;
  double temperature = 1.0;  // open loop sampling temperature, 0 = argmax, [0, 10]
  uint64_t sample_seed = 0;  // open loop: the action sampling stream (wm dream --seed)
  bool views = true;         // keep each frame's attention and token strip (the lab's views)

  bool operator==(const DreamSessionConfig&) const = default;

  static constexpr ParamRange from_range{0, 100000};
  static constexpr ParamRange history_range{-1, 100000};
  static constexpr ParamRange horizon_range{1, 100000};
  static constexpr ParamRange temperature_range{0, 10};
};
// A recorded episode as the start: its seed replayed with its recorded actions, reality
// truncated at `max_steps`. The team sizes are tried as drawn by the seed and as recorded;
// throws InputError when neither reproduces the recorded first state (a file from another
// simulator version).
DreamSessionConfig dream_session_config_of_record(const bnb::EpisodeRecord& rec,
                                                  int max_steps = bnb::kMaxEpisodeSteps);

// Everything the worker mutates: the simulator, its behaviour policy, the model's cache.
// Everything a step reads and mutates: the simulator, its behaviour policy, the model's
// cache, and where the dream stands. A worker given the engine (moved in, moved back) needs
// nothing of the timeline, which stays with its owner.
struct DreamEngine {
  bnb::SimState real;
  bnb::Behaviour behaviour;
  std::unique_ptr<DreamModel> model;  // null: no dream (real side and baselines only)
  DreamSessionConfig config;          // the session's settings (begin and restart set it)
  FrameTokens start_tokens{};         // the real state the dream starts from
  int start_step = -1;                // its agent step, -1 before begin
  int dream_steps = 0;                // dream steps taken since the start
};

struct DreamTimeline {
  DreamSessionConfig config;
  int start = 0;                   // index into frames where the dream begins
  std::vector<DreamFrame> frames;  // frames[i].step == i
  bool finished = false;           // reality ended or the horizon is reached
  int dream_steps() const { return static_cast<int>(frames.size()) - 1 - start; }
};

// Plays the prompt (config.from real steps, fewer if the episode ends) and starts the
// model there. The timeline then holds frames 0 .. start.
void dream_session_begin(const DreamSessionConfig& config, std::unique_ptr<DreamModel> model,
                         DreamEngine& engine, DreamTimeline& timeline);
// Re-seeds the dream from the real state at frame `at` (<= the newest): frames after it
// are dropped, reality is replayed to it exactly, and the model starts from the real prefix.
void dream_session_restart(DreamEngine& engine, DreamTimeline& timeline, int at);

// Optional per-ship override of one step (the helm): slot, its action, and whether reality
// takes the same action (else its behaviour policy flies it there).
struct HelmInput {
  int slot = -1;  // -1 none, [0, 7]
  bnb::ShipAction action;
  bool real_follows = true;
};
// Computes `steps` new frames (stops early when finished) from the engine alone: the new
// frames come back, to be appended to the timeline with dream_session_append. This is what
// the GUI's worker runs.
std::vector<DreamFrame> dream_session_advance(DreamEngine& engine, int steps,
                                              const HelmInput& helm = {});
// Throws InputError when the frames do not continue the timeline.
void dream_session_append(DreamTimeline& timeline, std::vector<DreamFrame> frames);
// Convenience: advance and append in one call (CLI, tests).
void dream_session_run(DreamEngine& engine, DreamTimeline& timeline, int steps,
                       const HelmInput& helm = {});

// ---- Helm actions (`poslab-cli wm dream --preset --helm-actions`) -------------------------
// The helm ship's actions of the dream steps h = 1 .. dream_steps, run-length coded as
// "P.T.S*N,..." (power, turn, shoot indices; N steps in a row); "" when helm < 0. With the
// preset, this is all a session needs to be replayed exactly.
std::string dream_helm_actions_text(const DreamTimeline& timeline, int helm);
// Parses the text above; throws InputError naming the bad entry, or when the counts add up
// to more than kDreamHelmActionsMax steps (a 60-byte argument must not ask for gigabytes).
inline constexpr size_t kDreamHelmActionsMax = 100000;
std::vector<bnb::ShipAction> dream_helm_actions_parse(const std::string& text);

// Per-horizon curves of a timeline (h = 1 .. dream_steps): error, copy-last, const-velocity.
struct DreamCurves {
  std::vector<ErrorSummary> dream, copy_last, const_velocity;  // index h - 1
};
DreamCurves dream_curves(const DreamTimeline& timeline);

// ---- Position variants compared past the context -----------------------------------------
// Closed-loop dreams from the same start with each model (e.g. RoPE, absolute recompute,
// absolute UniZero patch, absolute naive reuse), `horizon` steps each; position error per horizon,
// plus the constant-velocity baseline. Stops early (returning what it has) when *cancel turns true.
struct DreamComparisonSeries {
  std::string label;
  std::vector<double> pos_px;  // index h - 1; NaN where no ship was alive
};
struct DreamComparison {
  int context = 0;  // C of the first model
  int horizon = 0;  // steps dreamt
  std::vector<DreamComparisonSeries> series;
};
DreamComparison dream_compare(const DreamSessionConfig& config,
                              const std::vector<std::pair<std::string, const DreamModel*>>& models,
                              int horizon, const std::atomic<bool>* cancel = nullptr);

}  // namespace poslab::wm
