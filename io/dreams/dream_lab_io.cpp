// The dream lab's session from its preset and its numbers as JSON (dream_lab_io.hpp).
#include "io/dreams/dream_lab_io.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/wm/dream_lab_model.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/data/data_dir.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::io {

std::string dreams_model_path(const wm::DreamLabSettings& s) {
  return wm::dream_model_path(s.model, s.window, models_dir(), s.size);
}

std::unique_ptr<wm::DreamModel> dreams_load_model(const std::string& path, wm::DreamVariant w) {
  WmCheckpoint ck = wm_checkpoint_load(path);
  return wm::make_dream_model(ck.config, std::move(ck.params), w);
}

wm::DreamSessionConfig dreams_session_config(const wm::DreamLabSettings& s) {
  if (s.start != wm::DreamSource::file) return wm::dream_session_config(s);
  BnbDatasetReader reader(s.file);  // helper process: a corrupt file cannot crash the caller
  const int64_t n = reader.info().num_episodes;
  if (n < 1) throw FileError(s.file, "the dataset holds no episodes");
  const int64_t e = std::clamp<int64_t>(s.episode, 0, n - 1);
  return wm::dream_session_config(s, reader.read_episode(e));
}

namespace {

Json frames_json(const wm::DreamTimeline& tl, bool dream) {
  std::vector<float> states;
  for (size_t i = static_cast<size_t>(tl.start); i < tl.frames.size(); ++i) {
    const wm::FrameTokens& t = dream ? tl.frames[i].dream_tokens : tl.frames[i].real_tokens;
    states.insert(states.end(), t.begin(), t.end());
  }
  return dream_states_json(states);
}

}  // namespace

Json dreams_session_json(const std::string& preset, const std::string& checkpoint,
                         const wm::DreamModel* model, const wm::DreamTimeline& tl, int helm) {
  Json out = dreams_lab_json(preset, wm::dream_curves(tl));
  out["checkpoint"] = model ? Json(checkpoint) : Json(nullptr);
  out["model"] = model ? Json(model->describe()) : Json(nullptr);
  out["context"] = model ? model->context() : 0;
  out["start"] = tl.frames.empty() ? 0 : tl.frames[static_cast<size_t>(tl.start)].step;
  out["finished"] = tl.finished;
  out["helm"] = helm;
  out["helm_actions"] = wm::dream_helm_actions_text(tl, helm);
  out["real"] = frames_json(tl, false);
  out["dreamt"] = frames_json(tl, true);
  return out;
}

// ---- Every dream's JSON ------------------------------------------------------------------

Json dream_states_json(std::span<const float> states) {
  constexpr size_t kFrame = bnb::kSlots * bnb::kTokenDim;
  Json out = Json::array();
  for (size_t at = 0; at + kFrame <= states.size(); at += kFrame) {
    Json frame = Json::array();
    for (size_t k = 0; k < bnb::kSlots; ++k) {
      const auto ship = states.begin() + static_cast<long>(at + k * bnb::kTokenDim);
      frame.push_back(std::vector<float>(ship, ship + bnb::kTokenDim));
    }
    out.push_back(frame);
  }
  return out;
}

Json dream_error_json(const wm::ErrorSummary& s) {
  Json j;
  j["pos_px"] = s.pos_px;
  j["vel_px_s"] = s.vel_px_s;
  j["att_deg"] = s.att_deg;
  j["health"] = s.health;
  j["power"] = s.power;
  j["alive_agree"] = s.alive_agree;
  j["ships"] = s.alive_count;
  return j;
}

Json dream_curves_json(const wm::ErrorAccumulator& a, int K) {
  Json j;
  for (const char* key :
       {"pos_px", "vel_px_s", "att_deg", "health", "power", "alive_agree", "ships"})
    j[key] = Json::array();
  for (int k = 1; k <= K; ++k) {
    const Json s = dream_error_json(a.at(k));
    for (auto& [key, v] : s.items()) j[key].push_back(v);
  }
  return j;
}

// `window` is the decoder's mode past the context (wm_decode.hpp WmOverflow).
Json dream_summary_json(const wm::DreamSummary& s, const wm::DreamParams& p) {
  Json j;
  j["dreams"] = s.dreams;
  j["steps"] = p.steps;
  j["loop"] = wm::dream_loop_name(p.loop);
  j["window"] = wm::wm_overflow_name(p.window);
  j["model"] = dream_curves_json(s.model, p.steps);
  j["copy_last"] = dream_curves_json(s.copy_last, p.steps);
  j["constant_velocity"] = dream_curves_json(s.const_velocity, p.steps);
  Json at = Json::object();
  for (int k : wm::kHorizonPrint) {
    if (k > p.steps) continue;
    at[std::to_string(k)] = {{"model", s.model.at(k).pos_px},
                             {"copy_last", s.copy_last.at(k).pos_px},
                             {"constant_velocity", s.const_velocity.at(k).pos_px}};
  }
  j["pos_px_at"] = at;
  bool beats = true;
  for (int k = 1; k <= p.steps; ++k)
    if (s.model.at(k).alive_count > 0 && s.model.at(k).pos_px >= s.const_velocity.at(k).pos_px)
      beats = false;
  j["beats_constant_velocity_every_step"] = beats;
  return j;
}

Json dream_result_json(Json head, const wm::DreamResult& r, const std::string& loop,
                       const std::string& window, double temperature) {
  Json out = std::move(head);
  out["start"] = r.start;
  out["steps"] = r.steps;
  out["loop"] = loop;
  out["window"] = window;
  out["temperature"] = temperature;
  out["model"] = dream_curves_json(r.model, r.steps);
  out["copy_last"] = dream_curves_json(r.copy_last, r.steps);
  out["constant_velocity"] = dream_curves_json(r.const_velocity, r.steps);
  out["dreamt"] = dream_states_json(r.dreamt);
  out["real"] = dream_states_json(r.real);
  Json acts = Json::array();
  for (int t = 0; t < r.steps; ++t) {
    Json row = Json::array();
    for (int n = 0; n < bnb::kSlots; ++n) {
      const uint8_t* x =
          r.actions.data() + (static_cast<size_t>(t) * bnb::kSlots + static_cast<size_t>(n)) * 3;
      row.push_back({x[0], x[1], x[2]});
    }
    acts.push_back(row);
  }
  out["actions"] = acts;
  return out;
}

}  // namespace poslab::io
