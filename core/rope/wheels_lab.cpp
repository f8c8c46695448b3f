// Preset codec for the rotary-wheels lab. Only fields that differ from the defaults are
// written, which keeps lesson presets short.
#include "core/rope/wheels_lab.hpp"

#include <algorithm>

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

WheelsHands::WheelsHands(const RopeParams& p) {
  RopeParams original = p;
  original.scaling = RopeScaling::none;
  hands_ = RopeTable(p, {});
  plain_ = RopeTable(original, {});
}

void WheelsHands::set_position(double m, int trail) {
  if (m == m_ && trail == trail_) return;
  std::vector<double> positions(static_cast<size_t>(std::max(trail, 0)) + 1);
  for (size_t k = 0; k < positions.size(); ++k) positions[k] = m - static_cast<double>(k);
  hands_.set_positions(positions);
  plain_.set_positions({m});
  m_ = m;
  trail_ = trail;
}

const PresetTable<WheelsLabSettings>& wheels_preset_fields() {
  using S = WheelsLabSettings;
  static const PresetTable<S> t =
      preset_fields_of<S>(
          rope_preset_fields(), [](auto& s) -> auto& { return s.rope; }) +
      PresetTable<S>{
          preset_field<S>(
              "pos", [](auto& s) -> auto& { return s.position; }, S::position_range,
              "token position m shown"),
          preset_field<S>(
              "log", [](auto& s) -> auto& { return s.log_slider; },
              "position slider on a log scale"),
          preset_field<S>(
              "play", [](auto& s) -> auto& { return s.playing; }, "animate the position"),
          preset_field<S>(
              "speed", [](auto& s) -> auto& { return s.speed; }, S::speed_range,
              "animation speed, positions per second"),
          preset_field<S>(
              "trail", [](auto& s) -> auto& { return s.trail; }, S::trail_range,
              "positions drawn behind each hand"),
          preset_field<S>(
              "pair", [](auto& s) -> auto& { return s.selected_pair; }, S::selected_pair_range,
              "pair whose numbers are shown"),
          preset_field<S>(
              "dial", [](auto& s) -> auto& { return s.dial_size; }, S::dial_size_range,
              "dial diameter in pixels at scale 1"),
          preset_choice<S>(
              "qk", [](auto& s) -> auto& { return s.decay_vectors; }, decay_vectors_names(),
              "decay vectors: ones or seeded random", "--qk"),
          preset_field<S>(
              "decay_max", [](auto& s) -> auto& { return s.decay_max_distance; },
              S::decay_max_distance_range, "largest distance d of the decay plot", "--decay-max"),
      };
  return t;
}

std::string wheels_to_preset(const WheelsLabSettings& s) {
  PresetWriter w(kWheelsLabName);
  preset_write(w, wheels_preset_fields(), s, WheelsLabSettings{});
  return w.str();
}

WheelsLabSettings wheels_from_preset(const std::string& text, const WheelsLabSettings& base) {
  WheelsLabSettings s = base;
  PresetReader in(text, kWheelsLabName);
  preset_read(in, wheels_preset_fields(), s);
  in.finish();
  rope_validate(s.rope);  // cross-field checks (odd dim, beta order)
  return s;
}

}  // namespace poslab
