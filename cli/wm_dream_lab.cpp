// `poslab-cli wm dream --preset`: the dream lab's session from its preset, as JSON. The
// same core calls as the panel (dream_session_begin/advance through dream_session_replay)
// and the same JSON layout as its "Export numbers" (io/dreams/dream_lab_io.hpp).
#include "cli/wm_dream_lab.hpp"

#include <filesystem>
#include <iostream>

#include "core/common/errors.hpp"
#include "io/dreams/dream_lab_io.hpp"

namespace poslab::cli {

void add_dream_lab_options(CLI::App& dream, DreamLabArgs& args) {
  dream.add_option("--preset", args.preset,
                   "replay the dream lab's session from its preset (dreams?...): prints the "
                   "numbers the lab shows; --steps = dream steps (default: the horizon)");
  dream.add_option("--helm-actions", args.helm_actions,
                   "with --preset: the helm ship's actions per dream step, "
                   "POWER.TURN.SHOOT[*COUNT],... (the lab's export lists them)");
}

void run_dream_lab(const DreamLabArgs& a, const CLI::App& dream, int steps) {
  for (const char* name : {"--data", "--episode", "--sim-seed", "--start", "--history", "--loop",
                           "--temperature", "--seed", "--window"})
    if (dream.count(name) > 0)
      throw InputError(std::string(name) +
                       " does not combine with --preset: the preset holds the session "
                       "(e.g. dreams?loop=open&temp=0.5&file=data.h5&episode=3)");
  if (dream.count("checkpoint") > 0)
    throw InputError(
        "a checkpoint argument does not combine with --preset: name it in the "
        "preset (dreams?model=path.safetensors)");
  const wm::DreamLabSettings s = wm::dreams_from_preset(a.preset);
  const std::vector<bnb::ShipAction> helm = wm::dream_helm_actions_parse(a.helm_actions);
  if (!helm.empty() && s.helm < 0)
    throw InputError("--helm-actions needs a helm ship in the preset (helm=0..7)");
  const std::string path = io::dreams_model_path(s);
  if (!std::filesystem::exists(path))
    throw InputError(path +
                     ": checkpoint not found (train one with poslab-cli wm train, or "
                     "name one in the preset: model=path.safetensors)");
  auto model = io::dreams_load_model(path, s.window);
  const wm::DreamModel* proto = model.get();
  wm::DreamEngine engine;
  wm::DreamTimeline tl;
  wm::dream_session_replay(s, io::dreams_session_config(s), model->clone(),
                           steps >= 0 ? steps : s.horizon, helm, engine, tl);
  std::cout << io::dump_json(io::dreams_session_json(a.preset, path, proto, tl, s.helm)) << "\n";
}

}  // namespace poslab::cli
