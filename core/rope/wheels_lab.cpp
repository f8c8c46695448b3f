// Preset codec for the rotary-wheels lab. Only fields that differ from the defaults are
// written, which keeps lesson presets short.
#include "core/rope/wheels_lab.hpp"

#include "core/common/preset.hpp"
#include "core/common/random.hpp"
#include "core/rope/rope_preset.hpp"

namespace poslab {

const std::vector<std::string>& decay_vectors_names() {
  static const std::vector<std::string> n{"ones", "random"};
  return n;
}

WheelsDecay wheels_decay(const WheelsLabSettings& s) {
  rope_validate(s.rope);
  require_in_range("decay_max", s.decay_max_distance, WheelsLabSettings::decay_max_distance_range);
  WheelsDecay d;
  const int D = s.rope.head_dim;
  d.q = Eigen::VectorXd::Ones(D);
  d.k = Eigen::VectorXd::Ones(D);
  if (s.decay_vectors == DecayVectors::random) {
    SeededStream rq(1234, "wheels_decay_q", 0), rk(1234, "wheels_decay_k", 0);
    for (int j = 0; j < D; ++j) d.q[j] = rq.normal();
    for (int j = 0; j < D; ++j) d.k[j] = rk.normal();
  }
  d.deltas.resize(kWheelsDecaySamples);
  for (int t = 0; t < kWheelsDecaySamples; ++t)
    d.deltas[t] = s.decay_max_distance * t / (kWheelsDecaySamples - 1);
  RopeParams plain = s.rope;
  plain.scaling = RopeScaling::none;
  const Eigen::VectorXd scaled = rope_score_vs_distance(s.rope, d.q, d.k, d.deltas);
  const Eigen::VectorXd original = rope_score_vs_distance(plain, d.q, d.k, d.deltas);
  d.scaled.assign(scaled.data(), scaled.data() + scaled.size());
  d.original.assign(original.data(), original.data() + original.size());
  return d;
}

std::string wheels_to_preset(const WheelsLabSettings& s) {
  const WheelsLabSettings d;
  PresetWriter w(kWheelsLabName);
  const RopeParams &r = s.rope, &dr = d.rope;
  rope_preset_write(w, r, dr);
  if (s.position != d.position) w.add("pos", s.position);
  if (s.log_slider != d.log_slider) w.add("log", s.log_slider);
  if (s.playing != d.playing) w.add("play", s.playing);
  if (s.speed != d.speed) w.add("speed", s.speed);
  if (s.trail != d.trail) w.add("trail", s.trail);
  if (s.selected_pair != d.selected_pair) w.add("pair", s.selected_pair);
  if (s.dial_size != d.dial_size) w.add("dial", s.dial_size);
  if (s.decay_vectors != d.decay_vectors)
    w.add_text("qk", decay_vectors_names()[static_cast<int>(s.decay_vectors)]);
  if (s.decay_max_distance != d.decay_max_distance) w.add("decay_max", s.decay_max_distance);
  return w.str();
}

WheelsLabSettings wheels_from_preset(const std::string& text, const WheelsLabSettings& base) {
  WheelsLabSettings s = base;
  PresetReader in(text, kWheelsLabName);
  RopeParams& r = s.rope;
  rope_preset_read(in, r);
  in.read("pos", s.position, WheelsLabSettings::position_range);
  in.read("log", s.log_slider);
  in.read("play", s.playing);
  in.read("speed", s.speed, WheelsLabSettings::speed_range);
  in.read("trail", s.trail, WheelsLabSettings::trail_range);
  in.read("pair", s.selected_pair, WheelsLabSettings::selected_pair_range);
  in.read("dial", s.dial_size, WheelsLabSettings::dial_size_range);
  int qk = static_cast<int>(s.decay_vectors);
  in.read_choice("qk", qk, decay_vectors_names());
  s.decay_vectors = static_cast<DecayVectors>(qk);
  in.read("decay_max", s.decay_max_distance, WheelsLabSettings::decay_max_distance_range);
  in.finish();
  rope_validate(r);  // cross-field checks (odd dim, beta order)
  return s;
}

}  // namespace poslab
