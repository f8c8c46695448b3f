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

Json dreams_session_json(const std::string& preset, const std::string& checkpoint,
                         const wm::DreamModel* model, const wm::DreamTimeline& tl, int helm) {
  Json out;
  out["lab"] = wm::kDreamLabName;
  out["preset"] = preset;
  out["checkpoint"] = model ? Json(checkpoint) : Json(nullptr);
  out["model"] = model ? Json(model->describe()) : Json(nullptr);
  out["context"] = model ? model->context() : 0;
  out["finished"] = tl.finished;
  out["helm"] = helm;
  out["helm_actions"] = wm::dream_helm_actions_text(tl, helm);
  std::vector<float> real, dreamt;
  for (size_t i = static_cast<size_t>(tl.start); i < tl.frames.size(); ++i) {
    real.insert(real.end(), tl.frames[i].real_tokens.begin(), tl.frames[i].real_tokens.end());
    dreamt.insert(dreamt.end(), tl.frames[i].dream_tokens.begin(), tl.frames[i].dream_tokens.end());
  }
  const int start = tl.frames.empty() ? 0 : tl.frames[static_cast<size_t>(tl.start)].step;
  dream_json(out, start, wm::dream_curves(tl), real, dreamt);
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

Json dream_error_json(const wm::ErrorSummary& e) {
  Json j;
  j["pos_px"] = e.pos_px;
  j["vel_px_s"] = e.vel_px_s;
  j["att_deg"] = e.att_deg;
  j["health"] = e.health;
  j["power"] = e.power;
  j["ships"] = e.alive_count;
  j["present"] = e.present_count;
  j["agree"] = e.agree_count;
  j["alive_agree"] = e.alive_agree();
  return j;
}

Json dream_curves_json(const wm::DreamCurves& c) {
  const auto curve = [](const std::vector<wm::ErrorSummary>& errors) {
    Json out = Json::array();
    for (const wm::ErrorSummary& e : errors) out.push_back(dream_error_json(e));
    return out;
  };
  Json j;
  j["dream"] = curve(c.dream);
  j["copy_last"] = curve(c.copy_last);
  j["const_velocity"] = curve(c.const_velocity);
  return j;
}

wm::DreamCurves dream_curves_of(const wm::ErrorAccumulator& model,
                                const wm::ErrorAccumulator& copy_last,
                                const wm::ErrorAccumulator& const_velocity, int K) {
  wm::DreamCurves c;
  for (int k = 1; k <= K; ++k) {
    c.dream.push_back(model.at(k));
    c.copy_last.push_back(copy_last.at(k));
    c.const_velocity.push_back(const_velocity.at(k));
  }
  return c;
}

void dream_json(Json& out, int start, const wm::DreamCurves& curves, std::span<const float> real,
                std::span<const float> dreamt) {
  out["start"] = start;
  out["steps"] = curves.dream.size();
  out["curves"] = dream_curves_json(curves);
  out["real"] = dream_states_json(real);
  out["dreamt"] = dream_states_json(dreamt);
}

// `window` is the decoder's mode past the context (wm_decode.hpp WmOverflow).
Json dream_summary_json(const wm::DreamSummary& s, const wm::DreamParams& p) {
  Json j;
  j["dreams"] = s.dreams;
  j["steps"] = p.steps;
  j["loop"] = wm::dream_loop_name(p.loop);
  j["window"] = wm::wm_overflow_name(p.window);
  j["curves"] = dream_curves_json(dream_curves_of(s.model, s.copy_last, s.const_velocity, p.steps));
  Json at = Json::object();
  for (int k : wm::kHorizonPrint) {
    if (k > p.steps) continue;
    at[std::to_string(k)] = {{"dream", s.model.at(k).pos_px},
                             {"copy_last", s.copy_last.at(k).pos_px},
                             {"const_velocity", s.const_velocity.at(k).pos_px}};
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
  out["loop"] = loop;
  out["window"] = window;
  out["temperature"] = temperature;
  dream_json(out, r.start, dream_curves_of(r.model, r.copy_last, r.const_velocity, r.steps), r.real,
             r.dreamt);
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
