// The dream lab (preset lab name "dreams"): one start state of Boost and Broadside played
// two ways, by the exact simulator and by a world model's dream, fed the same actions.
// This file holds the lab's settings and preset codec, the per-step error of a dream
// against reality with the copy-last and constant-velocity baselines, the KV-cache index
// bookkeeping drawn by the token strip, and the session (a timeline of real and dreamt
// frames) that the GUI panel and `poslab-cli wm dream` both step.
//   N = 8 slots, 15 = token values, C = the model's context in steps
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_policy.hpp"
#include "core/bnb/bnb_sim.hpp"
#include "core/common/param_range.hpp"
#include "core/common/preset_fields.hpp"
#include "core/common/random.hpp"
#include "core/wm/eval.hpp"  // DreamLoop, the baselines and metrics (shared with `wm eval|dream`)

namespace poslab::wm {

inline constexpr const char* kDreamLabName = "dreams";
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
enum class DreamVariant { rope, recompute, naive, patch };
const std::vector<std::string>& dream_variant_names();  // "rope", "recompute", "naive", "patch"

enum class DreamSource { seed, file };  // a fresh episode from a seed, or a dataset episode
enum class DreamView { side, ghost };   // real | dream side by side, or dream ghosts over real

struct DreamLabSettings {
  DreamSource start = DreamSource::seed;  // where the start state comes from
  int seed = 7;                           // episode seed (start = seed), [0, 2147483647]
  int team0_size = 4;                     // ships of team 0, 0 = random (spec), [0, 4]
  int team1_size = 4;                     // ships of team 1, 0 = same as team 0, [0, 4]
  int policy = 1;                         // who flies reality: 0 expert, 1 noisy expert, 2 random
  std::string file;                       // HDF5 dataset (start = file)
  int episode = 0;                        // episode index in the file, [0, 1e9]
  int from = 8;      // real steps played before the dream starts (the prompt), [0, 511]
  int horizon = 96;  // dream steps at most, [1, 1536]
  DreamVariant window = DreamVariant::rope;  // position variant and window mode (model file too)
  std::string model;  // checkpoint path; empty = the shipped one for the variant
  DreamLoop loop = DreamLoop::closed;
  double temperature = 1.0;  // open loop sampling temperature, 0 = argmax, [0, 3]
  int helm = -1;             // slot flown from the keyboard, -1 none, [-1, 7]
  bool follow = true;        // reality follows the helm's inputs too (else its policy flies)
  DreamView view = DreamView::side;
  bool playing = true;    // advance the dream live
  double speed = 1.0;     // x real time (25 agent steps/s), [0.1, 16]
  int cursor = -1;        // timeline step shown, -1 = follow the newest, [-1, 100000]
  int selected = 0;       // slot of the token strip and attention rows, [0, 7]
  int layer = 0;          // attention view: block, [0, 63]
  int head = 0;           // attention view: head, [0, 63]
  bool attention = true;  // show the attention heatmaps
  bool strip = true;      // show the token strip
  bool compare = false;   // show the variants' error curves past the context
  int train = 0;          // training panel: 0 hidden, 1 shown, 2 shown and a run started, [0, 2]

  bool operator==(const DreamLabSettings&) const = default;

  static constexpr ParamRange seed_range{0, 2147483647};
  static constexpr ParamRange team_size_range{0, 4};
  static constexpr ParamRange policy_range{0, 2};
  static constexpr ParamRange episode_range{0, 1e9};
  static constexpr ParamRange from_range{0, 511};
  static constexpr ParamRange horizon_range{1, 1536};
  static constexpr ParamRange temperature_range{0, 3};
  static constexpr ParamRange helm_range{-1, 7};
  static constexpr ParamRange speed_range{0.1, 16};
  static constexpr ParamRange cursor_range{-1, 100000};
  static constexpr ParamRange slot_range{0, 7};
  static constexpr ParamRange layer_range{0, 63};
  static constexpr ParamRange head_range{0, 63};
  static constexpr ParamRange train_range{0, 2};
};

// Every preset field of the lab, in the order presets write them.
const PresetTable<DreamLabSettings>& dreams_preset_fields();
std::string dreams_to_preset(const DreamLabSettings& s);
// "Dream from here" in the arena lab: the dream lab's preset for the arena's episode (seed,
// teams and policy, or file and episode) with the dream starting at agent step `step`.
// A live episode is replayed from its seed, so steps flown by hand at the helm are not.
std::string dreams_preset_from_arena(const bnb::ArenaLabSettings& arena, int step);
// Starts from `base` and overrides what the preset names; throws InputError.
DreamLabSettings dreams_from_preset(const std::string& text, const DreamLabSettings& base = {});

// ---- Error of a predicted frame against the real one ------------------------------------
// core/wm/baselines.hpp's metrics for one frame: means over the ships alive in the real
// frame (toroidal position px, velocity px/s, attitude deg, health and power points) and
// alive/dead agreement over present ships.
struct StepError {
  double pos_px = 0;    // px
  double vel = 0;       // px/s
  double att_deg = 0;   // degrees, [0, 180]
  double health = 0;    // HP
  double power = 0;     // power points
  int ships = 0;        // ships alive in reality (the mean's count); 0: all fields 0
  int alive_agree = 0;  // present ships whose alive flag the prediction got right
  int present = 0;      // present ships
};
StepError step_error(std::span<const float> real, std::span<const float> pred);  // (8, 15) each

// ---- KV-cache index bookkeeping (the token strip) ---------------------------------------
// Tokens S_0 A_0 S_1 A_1 ... of one ship. nominal = 2t (S_t) or 2t+1 (A_t). A cached token
// has the index its key was stored (encoded) with and the index the model uses it at now;
// they differ only in the `reset` window after the first slide.
struct StripToken {
  int step = 0;         // t
  bool action = false;  // false: S_t, true: A_t
  int nominal = 0;      // 2t or 2t + 1
  bool cached = false;  // in the KV cache now
  int stored = -1;      // index the cached key was computed with (-1 if not cached)
  int used = -1;        // index the model treats the key as now (-1 if not cached)
};
// The strip after `steps` whole steps (S and A of steps 0 .. steps-1) were appended to a
// cache of `context` steps in the given window mode. One entry per token, oldest first.
std::vector<StripToken> dream_token_strip(DreamVariant window, int context, int steps);

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
  virtual int context() const = 0;  // C, steps
  virtual DreamVariant variant() const = 0;
  // What the model is (empty fields when the model does not say).
  virtual DreamModelInfo info() const { return {}; }
  // One English line ("rope, E 64, 4 blocks, ..."), "" when info() says nothing.
  std::string describe() const {
    const DreamModelInfo i = info();
    return i.position.empty() ? std::string() : describe_dream_model(i);
  }
  // Starts over: the prompt is the real prefix, tokens (T+1, 8, 15) = S_0 .. S_T and
  // actions (T, 8, 3) = A_0 .. A_{T-1}; the next step() is step T. Sampling draws from
  // the stream (sample_seed, "wm-dream-action", T), as core/wm/eval's dreams do.
  virtual void begin(std::span<const float> tokens, std::span<const uint8_t> actions,
                     uint64_t sample_seed) = 0;
  // Feeds A_t (chosen per `choice`) after the current S_t and returns S_{t+1}, which
  // becomes the current state.
  virtual DreamStep step(const DreamChoice& choice) = 0;
  // The cache as the token strip draws it (defaults to dream_token_strip's bookkeeping).
  virtual std::vector<StripToken> strip(int steps) const {
    return dream_token_strip(variant(), context(), steps);
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
  StepError error;                  // dream vs real at this step (horizon step - start)
  StepError copy_last;              // baseline errors at the same horizon
  StepError const_velocity;
  std::shared_ptr<const DreamAttention> attention;  // of the step that dreamt this frame
  std::vector<StripToken> strip;  // cached tokens after dreaming this frame, oldest first
};

struct DreamSessionConfig {
  uint64_t seed = 7;           // episode seed (reset and behaviour streams)
  bnb::EpisodeConfig episode;  // team sizes
  bnb::PolicyKind policy = bnb::PolicyKind::noisy_expert;  // flies reality
  std::vector<bnb::JointAction> replay;                    // policy == replay: the recorded actions
  int from = 8;      // prompt steps before the dream, [0, 511]
  int horizon = 96;  // dream steps at most, [1, 100000]
  DreamLoop loop = DreamLoop::closed;
  double temperature = 1.0;  // open loop, [0, 3]
  uint64_t sample_seed = 0;  // open loop: the action sampling stream (wm dream --seed)
};
DreamSessionConfig dream_session_config(const DreamLabSettings& s);
// A dataset episode as the start: its seed replayed with its recorded actions (the real
// side is then the recorded episode, extended by the simulator under the helm). The team
// sizes are tried as drawn by the seed and as recorded; throws InputError when neither
// reproduces the recorded first state (a file from another simulator version).
DreamSessionConfig dream_session_config(const DreamLabSettings& s, const bnb::EpisodeRecord& rec);

// Everything the worker mutates: the simulator, its behaviour policy, the model's cache.
struct DreamEngine {
  bnb::SimState real;
  bnb::Behaviour behaviour;
  std::unique_ptr<DreamModel> model;  // null: no dream (real side and baselines only)
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
// Computes `steps` new frames (stops early when finished) without touching `timeline`:
// the new frames come back, to be appended with dream_session_append. `last` is the
// timeline's newest frame. This is what the GUI's worker runs.
std::vector<DreamFrame> dream_session_advance(DreamEngine& engine, const DreamTimeline& timeline,
                                              int steps, const HelmInput& helm = {});
void dream_session_append(DreamTimeline& timeline, std::vector<DreamFrame> frames);
// Convenience: advance and append in one call (CLI, tests).
void dream_session_run(DreamEngine& engine, DreamTimeline& timeline, int steps,
                       const HelmInput& helm = {});

// ---- Replaying the lab's session (`poslab-cli wm dream --preset`) ------------------------
// The helm ship's actions of the dream steps h = 1 .. dream_steps, run-length coded as
// "P.T.S*N,..." (power, turn, shoot indices; N steps in a row); "" when helm < 0. With the
// preset, this is all a session needs to be replayed exactly.
std::string dream_helm_actions_text(const DreamTimeline& timeline, int helm);
// Parses the text above; throws InputError naming the bad entry, or when the counts add up
// to more than kDreamHelmActionsMax steps (a 60-byte argument must not ask for gigabytes).
inline constexpr size_t kDreamHelmActionsMax = 100000;
std::vector<bnb::ShipAction> dream_helm_actions_parse(const std::string& text);
// The lab's session from its settings: begin, then `steps` dream steps (fewer when it
// finishes), the helm slot (s.helm, s.follow) flown with helm[i] at dream step i + 1 and
// the neutral action past the list's end. What the panel does frame by frame, in one call.
void dream_session_replay(const DreamLabSettings& s, const DreamSessionConfig& config,
                          std::unique_ptr<DreamModel> model, int steps,
                          const std::vector<bnb::ShipAction>& helm, DreamEngine& engine,
                          DreamTimeline& timeline);

// Per-horizon curves of a timeline (h = 1 .. dream_steps): error, copy-last, const-velocity.
struct DreamCurves {
  std::vector<StepError> dream, copy_last, const_velocity;  // index h - 1
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
