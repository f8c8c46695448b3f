// A running KV-cache experiment: one cache per correction method, all fed the same
// tokens, each step measured against full recomputation. The panel drives it step by
// step (append, slide, stitch); `poslab-cli kv` runs a whole scenario with kv_run_scenario.
//
// Sliding: an episode stream s1 a1 s2 a2 ... (state and action tokens alternate; episode
// timestep indexing gives step k the indices 2k and 2k+1). The window holds C tokens; a
// slide drops the oldest drop_steps steps, corrects, and appends as many new steps. The
// ground truth recomputes the window's raw tokens at 0 .. n-1.
// Stitch / rag: caches of two documents B and A, each computed alone from index 0; the
// stitched cache is [first; A] with first = all of B (stitch) or slots retrieved from B
// (rag). New tokens continue at L; the ground truth recomputes the stitched text from scratch.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/common/message.hpp"
#include "core/kv/kv_cache.hpp"
#include "core/kv/kv_forward_run.hpp"
#include "core/kv/kv_lab.hpp"

namespace poslab {

// Errors of one step. Relative Frobenius errors, one entry per layer.
struct KvStepErrors {
  int step = 0;                      // 1-based: slide number (sliding) or new-token number
  std::vector<double> output_error;  // new tokens' residual stream after each layer vs ground truth
  std::vector<double>
      key_error;  // all cached keys vs the ground truth's keys at each slot's used index
  std::vector<double> value_error;  // all cached values vs the ground truth's values
  double logits_error = 0;          // new tokens' logits vs ground truth
};

struct KvMethodState {
  KvMethod method = KvMethod::naive;
  KvCache cache;                      // this method's cache after the last step
  KvTrace last;                       // forward trace of the last appended tokens
  std::vector<KvStepErrors> history;  // one entry per step taken
  // stitch/rag, per layer: stitched keys vs the source runs' raw keys rotated to their
  // global index 0..L-1. Positions only: rounding level when re-encoding is right.
  std::vector<double> key_position_error;
};

struct KvSession {
  KvLabSettings settings;
  KvModel model;
  std::vector<KvMethodState> methods;  // every method applicable to the scenario
  int step = 0;                        // steps taken (slides, appended steps or new tokens)

  // sliding: the window is stream tokens [window_begin, window_end); stream index i is
  // token label s/a (i/2 + 1) at episode index i.
  int window_begin = 0;
  int window_end = 0;

  // stitch/rag
  std::vector<int> doc_b, doc_a;  // token ids of B (first block's source) and A
  KvCache cache_b, cache_a;       // each computed alone from index 0
  KvTrace trace_b, trace_a;       // their forward traces (raw keys for the key-position error)
  bool stitched = false;
  std::vector<int> text;  // tokens the stitched cache stands for, then the new tokens
  std::vector<std::string> text_labels;

  KvTrace truth;        // ground truth of the last step (full recomputation)
  KvCache truth_cache;  // its K/V, slots at the indices recomputation uses
};

// Stream token i of the sliding episode (state ids in [0, V/2), action ids in [V/2, V)).
int kv_stream_token(const KvModelParams& p, int i);
std::string kv_stream_label(int i);  // "s1", "a1", "s2", ...

// Validates the settings and builds the model and the initial caches (sliding: a full
// window of C tokens at 0..C-1; stitch/rag: B's and A's caches, not yet stitched).
KvSession kv_session_start(const KvLabSettings& s);
// sliding: drop drop_steps oldest steps, correct, append as many new steps, measure.
void kv_session_slide(KvSession& ses);
// sliding: append one episode step without dropping (learned positions: only while the
// window has room, else InputError). stitch/rag: append one new token (stitching first).
void kv_session_append(KvSession& ses);
// Why kv_session_append would refuse now (learned positions, full window), or empty.
Message kv_session_append_refusal(const KvSession& ses);
// stitch/rag: build [first; A] for every method and apply its correction. Once.
void kv_session_stitch(KvSession& ses);
// The state of one method (throws InputError if the scenario does not run it).
const KvMethodState& kv_session_method(const KvSession& ses, KvMethod m);

// Per slot: relative error of a method's cached key at `layer` (one head, or every head
// with head = -1) against the ground truth's key at the slot's used index. Empty when the
// method's cache and the ground truth hold different slots (e.g. before stitching).
std::vector<double> kv_slot_key_errors(const KvSession& ses, const KvMethodState& st, int layer,
                                       int head);

// RoPE pair `pair` of a slot: the angle its stored key encodes (encoded_at * theta) and
// the angle it should have where it is used (used_at * theta), in radians, not reduced.
struct KvSlotAngles {
  double stored;
  double should;
};
KvSlotAngles kv_slot_angles(const KvModelParams& p, const KvSlot& slot, int pair);

// `steps` steps of the scenario: slides (sliding) or new tokens (stitch/rag, stitching
// first if needed). Stops early, between steps, once *cancel is true (then fewer steps ran).
void kv_session_advance(KvSession& ses, int steps, const std::atomic<bool>* cancel = nullptr);
// start, then settings.steps steps (kv_session_advance).
KvSession kv_run_scenario(const KvLabSettings& s, const std::atomic<bool>* cancel = nullptr);

// kv_run_scenario (or kv_session_advance of a session) in bounded steps, for a caller that
// steps it (the app's jobs: the browser's frames run a few steps each): the start, the
// stitch (stitch/rag, once), then one slide or new token per step. Running every step
// gives kv_run_scenario's session (kv_session_advance's), number for number.
class KvSessionRun {
 public:
  // A new session: start, then s.steps (kv_run_scenario); run = false: the start alone
  // (kv_session_start).
  explicit KvSessionRun(const KvLabSettings& s, bool run = true);
  // `steps` more steps of `base` (kv_session_advance: stitch/rag stitch first); append: a
  // sliding session's kv_session_append, `steps` times, instead of its slides.
  KvSessionRun(KvSession base, int steps, bool append = false);
  bool done() const { return started_ && stitched_ && left_ == 0; }
  int steps_done() const { return steps_ - left_; }
  int steps() const { return steps_; }
  // One piece of a full forward (an embedding, a projection, a head, a block of the MLP's
  // columns), or the rest of a unit (the start, the stitch, a slide, a new token).
  void step();
  KvSession take() { return std::move(ses_); }

 private:
  void plan();
  bool slide_part();
  KvLabSettings settings_;
  KvSession ses_;
  std::unique_ptr<KvModel> model_;   // the start's model, before the session holds it
  std::vector<KvForwardRun> ahead_;  // the next unit's full forwards, computed in pieces
  bool planned_ = false;
  bool started_ = false;
  bool stitched_ = false;  // the stitch is done, or not needed
  bool append_ = false;    // sliding: append steps without dropping (kv_session_append)
  int steps_ = 0, left_ = 0;
  int method_ = -1;        // the slide's method being dropped and corrected (-1: not begun)
  int legacy_layer_ = -1;  // the legacy correction's next layer (-1: its delta not yet made)
  RowMatrix delta_;        // the legacy correction's delta (S, W)
};

}  // namespace poslab
