// The dream lab's session from its preset and its numbers as JSON (dream_lab_io.hpp).
#include "io/labjson/dream_lab_io.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/wm/dream_lab_model.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/data/data_dir.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::io {

std::string dreams_model_path(const wm::DreamLabSettings& s) {
  return wm::dream_model_path(s.model, s.window, models_dir());
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
  Json out = Json::array();
  for (size_t i = static_cast<size_t>(tl.start); i < tl.frames.size(); ++i) {
    const wm::FrameTokens& t = dream ? tl.frames[i].dream_tokens : tl.frames[i].real_tokens;
    Json frame = Json::array();
    for (int k = 0; k < bnb::kSlots; ++k)
      frame.push_back(
          std::vector<float>(t.begin() + k * bnb::kTokenDim, t.begin() + (k + 1) * bnb::kTokenDim));
    out.push_back(frame);
  }
  return out;
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

}  // namespace poslab::io
