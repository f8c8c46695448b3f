// Each lab's numbers come from one core function that the panel and the CLI both call:
// the wheels decay curve, the attention lab's compute, the KV lab's normalising rules and
// step loop; plus the name/join helpers every lab shares. Checked against independent
// references (closed forms, the random module's own streams, hand-written expectations).
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>

#include "core/attention/attention_lab.hpp"
#include "core/common/names.hpp"
#include "core/common/random.hpp"
#include "core/kv/kv_session.hpp"
#include "core/rope/wheels_lab.hpp"

using namespace poslab;

TEST_CASE("wheels decay with q = k = ones is RoFormer's sum of 2 cos(d theta_i)") {
  WheelsLabSettings s;
  s.rope.head_dim = 16;
  s.rope.base = 10000;
  s.decay_max_distance = 1000;
  const WheelsDecay d = wheels_decay(s);
  REQUIRE(d.deltas.size() == static_cast<size_t>(kWheelsDecaySamples));
  CHECK(d.deltas.front() == 0);
  CHECK(d.deltas.back() == Approx(1000));
  for (size_t t = 0; t < d.deltas.size(); t += 37) {
    double want = 0;
    for (int i = 0; i < 8; ++i) want += 2 * std::cos(d.deltas[t] * std::pow(10000.0, -i / 8.0));
    INFO("d = " << d.deltas[t]);
    CHECK(d.scaled[t] == Approx(want).margin(1e-9));
    CHECK(d.original[t] == Approx(want).margin(1e-9));  // no scaling: the same curve
  }
}

TEST_CASE("wheels decay with random q, k uses the portable normal stream") {
  WheelsLabSettings s;
  s.rope.head_dim = 8;
  s.decay_vectors = DecayVectors::random;
  s.rope.scaling = RopeScaling::linear;
  s.rope.factor = 4;
  const WheelsDecay d = wheels_decay(s);
  SeededStream rq(1234, "wheels_decay_q", 0), rk(1234, "wheels_decay_k", 0);
  for (int j = 0; j < 8; ++j) {
    CHECK(d.q[j] == rq.normal());
    CHECK(d.k[j] == rk.normal());
  }
  // At distance 0 rotation cancels: the score is q . k, with or without the extension.
  CHECK(d.scaled[0] == Approx(d.q.dot(d.k)).margin(1e-12));
  CHECK(d.original[0] == Approx(d.q.dot(d.k)).margin(1e-12));
  // Linear interpolation by 4: the scaled curve at d is the plain curve at d / 4.
  WheelsLabSettings plain = s;
  plain.rope.scaling = RopeScaling::none;
  plain.decay_max_distance = s.decay_max_distance / 4;
  const WheelsDecay p = wheels_decay(plain);
  for (size_t t = 0; t < d.scaled.size(); t += 51) CHECK(d.scaled[t] == Approx(p.scaled[t]));
}

TEST_CASE("attention lab compute: demos sample what both faces show") {
  AttentionLabSettings s;
  s.demo = AttentionDemo::rope_decay;
  s.decay_max = 100;
  const AttentionLabResult r = attention_lab_compute(s);
  REQUIRE(r.has_decay);
  CHECK(r.decay.deltas.size() == static_cast<size_t>(kAttentionDecayPoints));
  CHECK(r.decay.deltas.back() == Approx(100));

  s = AttentionLabSettings{};
  s.params.encoding = AttentionEncoding::t5;
  s.demo = AttentionDemo::t5_buckets;
  s.source = AttentionSource::count;
  s.token_count = 300;
  s.params.t5_max_distance = 100;
  const AttentionLabResult t = attention_lab_compute(s);
  CHECK(t.bucket_horizon == 300);  // more tokens than 2 x max_distance: all their distances
  CHECK(t.demo_matrix.rows() == 300);
  s.token_count = 10;
  CHECK(attention_lab_compute(s).bucket_horizon == 200);

  s = AttentionLabSettings{};
  s.demo = AttentionDemo::permutation;
  s.params.encoding = AttentionEncoding::none;
  const AttentionLabResult p = attention_lab_compute(s, nullptr, {.only_head = 1});
  REQUIRE(p.has_pair);
  CHECK(p.pair.max_abs_score_diff < 1e-5);       // no encoding: only permuted
  CHECK(p.result.heads[1].weights.rows() == 7);  // the default sentence: seven words
  CHECK(p.result.heads[0].weights.size() == 0);  // only the head asked for
  CHECK_THROWS_AS(attention_lab_compute(s, nullptr, {.only_head = 4}), InputError);
}

TEST_CASE("kv normalising: a preset gets what follows from its choices") {
  // Stitching with no method named: the scenario's first method, not a rejection.
  const KvLabSettings s = kv_from_preset("kv?pos=rope&scenario=stitch");
  CHECK(s.method == KvMethod::naive);
  // Stitching runs on RoPE when positions were not named...
  CHECK(kv_from_preset("kv?scenario=rag").model.positions == KvPositions::rope);
  // ...but values named explicitly stay, and a conflict is reported.
  CHECK_THROWS_WITH(kv_from_preset("kv?pos=learned&scenario=stitch"),
                    Catch::Contains("positions = rope"));
  CHECK_THROWS_WITH(kv_from_preset("kv?method=kshift"), Catch::Contains("choose one of"));
  // The panel's rules: views inside the model, an even context.
  KvLabSettings p;
  p.model.layers = 2;
  p.view_layer = 3;
  p.model.context = 11;
  kv_lab_normalize(p);
  CHECK(p.view_layer == 1);
  CHECK(p.model.context == 12);
  kv_lab_validate(p);
}

TEST_CASE("kv session advance runs the scenario's steps and stops when cancelled") {
  KvLabSettings s;
  s.steps = 3;
  const KvSession full = kv_run_scenario(s);
  CHECK(full.step == 3);
  KvSession ses = kv_session_start(s);
  kv_session_advance(ses, 3);
  CHECK(ses.step == 3);
  CHECK(ses.methods[0].history.back().output_error == full.methods[0].history.back().output_error);
  std::atomic<bool> cancel{true};
  kv_session_advance(ses, 5, &cancel);
  CHECK(ses.step == 3);
}

TEST_CASE("kv session run: one slide or new token per step equals the whole scenario") {
  for (KvScenario sc : {KvScenario::sliding, KvScenario::stitch}) {
    INFO("scenario " << kv_scenario_name(sc));
    KvLabSettings s;
    s.scenario = sc;
    s.steps = 4;
    kv_lab_normalize(s);
    const KvSession full = kv_run_scenario(s);
    KvSessionRun run(s);
    int n = 0;
    for (; !run.done(); ++n) {
      CHECK(run.steps_done() <= run.steps());
      run.step();
    }
    // the start, the stitch (or nothing), each slide or new token: a unit each, of one step
    // per piece of its full forwards and one for the rest
    CHECK(n > 2 + s.steps);
    const KvSession ses = run.take();
    CHECK(ses.step == full.step);
    CHECK(ses.stitched == full.stitched);
    CHECK(ses.truth.logits == full.truth.logits);
    CHECK(ses.truth_cache.layers.back().keys == full.truth_cache.layers.back().keys);
    REQUIRE(ses.methods.size() == full.methods.size());
    for (size_t m = 0; m < ses.methods.size(); ++m) {
      REQUIRE(ses.methods[m].history.size() == full.methods[m].history.size());
      CHECK(ses.methods[m].history.back().output_error ==
            full.methods[m].history.back().output_error);
      CHECK(ses.methods[m].history.back().logits_error ==
            full.methods[m].history.back().logits_error);
    }
    // More steps of a session: kv_session_advance's.
    KvSession more = kv_session_start(s);
    kv_session_advance(more, 2);
    KvSessionRun again(kv_session_start(s), 2);
    while (!again.done()) again.step();
    CHECK(again.take().methods[0].history.back().output_error ==
          more.methods[0].history.back().output_error);
  }
}

TEST_CASE("names: join and enum_from_name list the choices") {
  CHECK(join({"a", "b", "c"}) == "a, b, c");
  CHECK(join({"x"}, " | ") == "x");
  CHECK(join({}) == "");
  CHECK(enum_from_name<RopeLayout>("layout", "half", rope_layout_names()) ==
        RopeLayout::half_split);
  CHECK_THROWS_WITH(enum_from_name<RopeLayout>("layout", "zigzag", rope_layout_names()),
                    "layout = \"zigzag\": expected one of interleaved, half");
}
